// Where a communicator's ranks sit, as far as an algorithm cares. The core
// fills it from the topology file and the rank mapping; algorithms never read
// topology files themselves.
#pragma once

#include <vector>

namespace trnccl::algo {

struct RankLayout {
  // The X x Y grid the ranks form on the machine's links, when they form one:
  // the rank at column x, row y is grid[y * gridWidth + x]; rows and columns are
  // rings (a torus). Empty when the topology gives no grid for these ranks.
  int gridWidth = 0, gridHeight = 0;
  std::vector<int> grid;
  // Per rank: the instance (node) it runs on. Empty: all on one instance.
  std::vector<int> instanceOf;
  // With a grid: how many neighbouring columns are the NeuronCores of one
  // chip (columns x with the same x / ranksPerChip share a chip, the first
  // of them its primary core). 1 when each rank has a chip of its own or
  // the chips' cores are not all in the communicator.
  int ranksPerChip = 1;

  bool hasGrid() const { return !grid.empty(); }
  int instances() const;  // distinct instances (1 when instanceOf is empty)
};

}  // namespace trnccl::algo
