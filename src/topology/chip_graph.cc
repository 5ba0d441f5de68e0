#include "topology/chip_graph.h"

#include <algorithm>
#include <deque>

namespace trnccl::topo {

ChipGraph::ChipGraph(int chips, const std::vector<Link>& links) : neighbours_(chips) {
  for (const Link& l : links) {
    neighbours_[l.a].push_back(l.b);
    neighbours_[l.b].push_back(l.a);
  }
  for (auto& n : neighbours_) std::sort(n.begin(), n.end());
}

ChipGraph::Search ChipGraph::breadthFirst(int from) const {
  Search s{std::vector<int>(neighbours_.size(), -1), std::vector<int>(neighbours_.size(), -1)};
  std::deque<int> queue{from};
  s.hops[from] = 0;
  while (!queue.empty()) {
    const int chip = queue.front();
    queue.pop_front();
    for (int next : neighbours_[chip]) {
      if (s.hops[next] >= 0) continue;
      s.hops[next] = s.hops[chip] + 1;
      s.parent[next] = chip;
      queue.push_back(next);
    }
  }
  return s;
}

std::vector<int> ChipGraph::distances(int from) const { return breadthFirst(from).hops; }

std::vector<int> ChipGraph::shortestPath(int from, int to) const {
  const Search s = breadthFirst(from);
  std::vector<int> path;
  if (s.hops[to] <= 0) return path;
  for (int chip = to; chip != from; chip = s.parent[chip]) path.push_back(chip);
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace trnccl::topo
