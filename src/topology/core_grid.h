// The NeuronCores of one instance as a 2D grid, for the 2D-torus algorithm:
// x runs along the torus's first dimension, NeuronCores of a chip side by
// side (x = chipX * coresPerChip + core); y runs along the remaining
// dimensions (y = chipY + dimY * chipZ). A ring (or a chip list without a
// torus) is a single row. Instances are not part of the grid.
#pragma once

#include "topology/rank_map.h"
#include "topology/topology.h"

namespace trnccl::topo {

struct GridPoint {
  int x = 0, y = 0;
  bool operator==(const GridPoint&) const = default;
};

GridPoint gridPoint(const Topology& t, CoreLocation where);
int gridWidth(const Topology& t);
int gridHeight(const Topology& t);

}  // namespace trnccl::topo
