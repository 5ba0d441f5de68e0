// The NeuronLink graph of one instance: which chips a link list joins, how
// far apart they are, and a deterministic shortest path between two of them.
#pragma once

#include <vector>

#include "topology/topology.h"

namespace trnccl::topo {

class ChipGraph {
 public:
  ChipGraph(int chips, const std::vector<Link>& links);

  // Hops from `from` to every chip; -1 where no path exists.
  std::vector<int> distances(int from) const;
  // The chips visited after `from` up to and including `to` on a shortest
  // path: the one a breadth-first search finds when it visits neighbours in
  // increasing chip order (lowest index wins ties). Empty if from == to or
  // no path exists.
  std::vector<int> shortestPath(int from, int to) const;

 private:
  struct Search {
    std::vector<int> hops;    // -1: not reached
    std::vector<int> parent;  // the chip each was reached from
  };
  Search breadthFirst(int from) const;

  std::vector<std::vector<int>> neighbours_;  // sorted
};

}  // namespace trnccl::topo
