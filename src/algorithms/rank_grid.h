// The X x Y torus of ranks the 2D algorithms run on: rows and columns are rings.
#pragma once

#include <string>
#include <vector>

#include "algorithms/algorithm.h"

namespace trnccl::algo {

struct RankGrid {
  int width = 1, height = 1;
  std::vector<int> ranks;  // the rank at column x, row y is ranks[y * width + x]

  int at(int x, int y) const { return ranks[y * width + x]; }
  std::vector<int> row(int y) const;     // its ranks in x order
  std::vector<int> column(int x) const;  // its ranks in y order
  int xOf(int rank) const;
  int yOf(int rank) const;
};

// Empty when `layout` has no grid or a grid of exactly the ranks 0..nranks-1;
// otherwise what is wrong with it.
std::string whyBadGrid(const RankLayout& layout, int nranks);

// The grid of args.layout when it has one; otherwise the most square X x Y
// with X <= Y (6 ranks: 2 x 3; a prime: 1 x n, a ring) in row-major order.
// Throws Error(InternalError) for a layout whyBadGrid rejects.
RankGrid gridFor(const CollectiveArgs& args);

}  // namespace trnccl::algo
