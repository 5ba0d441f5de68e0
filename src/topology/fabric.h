// Every directed link of a job (NeuronLinks, on-chip transfers, EFA NICs of
// every instance) and the route between two NeuronCores over them, for the
// tuner's cost model and the link emulation.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "topology/chip_graph.h"
#include "topology/rank_map.h"
#include "topology/topology.h"

namespace trnccl::topo {

// One direction of a link: "node0 chip3->chip7", "node0 chip3 cores" (between
// the NeuronCores of chip 3), "node1 efa0 out", "node1 efa0 in".
struct DirectedLink {
  std::string name;
  double bytesPerSec = 0;
  double latencySec = 0;  // an EFA crossing's latency is counted once, on its out link
};

// The links a transfer crosses, in order; latency is their sum and bandwidth
// the bottleneck's.
struct Route {
  std::vector<int> links;
  double latencySec = 0;
  double bytesPerSec = 0;
};

class Fabric {
 public:
  explicit Fabric(const Topology& t);

  int linkCount() const { return static_cast<int>(links_.size()); }
  const DirectedLink& link(int i) const { return links_.at(static_cast<size_t>(i)); }

  // Between two different NeuronCores of the job:
  //  - same chip: the chip's on-chip link;
  //  - same instance: a shortest NeuronLink path (dimension order on a torus,
  //    the shorter way round, ties toward +; breadth-first with the lowest
  //    chip first for listed links, and on a torus whose dimension-order
  //    route crosses a link the topology lacks, such as one the simulator's
  //    --fail-link took out);
  //  - other instance: NeuronLink to the NIC nearest the source chip (several
  //    equally near: spread by NeuronCore index), its out link, the same NIC's
  //    in link on the destination instance, NeuronLink to the destination chip.
  Route route(CoreLocation from, CoreLocation to) const;

 private:
  void checkLocation(CoreLocation where) const;
  // The chips a route from chip `from` to chip `to` visits after `from`.
  std::vector<int> chipPath(int from, int to) const;
  // Appends the NeuronLink hops from chip `from` to chip `to` of `node`.
  void appendChipPath(int node, int from, int to, std::vector<int>& links) const;
  int nodeBase(int node) const { return node * linksPerNode_; }

  Topology topology_;
  ChipGraph graph_;
  std::map<std::pair<int, int>, int> directedByChips_;  // (from chip, to chip) -> offset within a node
  std::vector<std::vector<int>> nearestNics_;           // per chip
  int linksPerNode_;
  std::vector<DirectedLink> links_;
};

}  // namespace trnccl::topo
