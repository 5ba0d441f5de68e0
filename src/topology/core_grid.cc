#include "topology/core_grid.h"

namespace trnccl::topo {

namespace {

int firstDimension(const Topology& t) { return t.torus.empty() ? t.chips : t.torus[0]; }

}  // namespace

// Chips are numbered row-major, so chip % dimX is the chip's x and
// chip / dimX is chipY + dimY * chipZ.
GridPoint gridPoint(const Topology& t, CoreLocation where) {
  const int dimX = firstDimension(t);
  return {where.chip % dimX * t.coresPerChip + where.core, where.chip / dimX};
}

int gridWidth(const Topology& t) { return firstDimension(t) * t.coresPerChip; }

int gridHeight(const Topology& t) { return t.chips / firstDimension(t); }

}  // namespace trnccl::topo
