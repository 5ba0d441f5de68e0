// Geometry of a NeuronLink torus. Chips are numbered row-major in the shape
// (chip = x + dimX * (y + dimY * z)) and every dimension wraps around.
#pragma once

#include <vector>

namespace trnccl::topo {

int torusSize(const std::vector<int>& shape);
std::vector<int> torusCoords(const std::vector<int>& shape, int chip);
int torusChip(const std::vector<int>& shape, const std::vector<int>& coords);

// A pair of neighbouring chips and the dimension they neighbour in.
struct TorusLink {
  int a, b, dim;
};
// Every neighbour pair once: a dimension of 2 has one link per pair, not two.
std::vector<TorusLink> torusLinks(const std::vector<int>& shape);

// All chips in an order where consecutive chips are neighbours (a snake:
// row 0 left to right, row 1 right to left, ...; each plane the reverse of the
// previous), so a ring in this order uses only links. The ring also closes
// (last and first chip are neighbours) when there is one dimension or the
// last dimension's size is even, as in every shipped topology.
std::vector<int> torusRingOrder(const std::vector<int>& shape);

// The chips a dimension-order route visits after `from` up to and including
// `to`: lowest dimension first, the shorter way round, ties toward +.
std::vector<int> torusPath(const std::vector<int>& shape, int from, int to);

}  // namespace trnccl::topo
