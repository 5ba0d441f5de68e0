// Every directed link of a job (NeuronLinks or NeuronSwitch ports, on-chip
// transfers, EFA NICs of every instance) and the route between two NeuronCores over them, for the
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
// the NeuronCores of chip 3), "node1 efa0 out", "node1 efa0 in", and, where
// the topology models the chips' collective DMA engines, "node0 chip3 dma"
// (they read each message the chip sends or forwards and write it to its
// destination; all NeuronCores of a chip share them); through a NeuronSwitch,
// "node0 chip3 switch out" / "switch in" (the chip's port) and
// "node0 server2 up" / "down" (into and out of the second-level switches).
struct DirectedLink {
  std::string name;
  double bytesPerSec = 0;
  double latencySec = 0;  // an EFA crossing's latency is counted once, on its out link
  double messageSec = 0;  // what issuing a message holds the link for besides its bytes
};

// The links a transfer crosses, in order; latency is their sum and bandwidth
// the bottleneck's. The sender's DMA link (when modelled) issues it.
struct Route {
  std::vector<int> links;
  double latencySec = 0;
  double bytesPerSec = 0;
  int issueLink = -1;
  double issueSec = 0;
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
  //  - same instance through a NeuronSwitch: the source chip's port out, the
  //    servers' up and down links when the chips sit in different servers,
  //    the destination chip's port in;
  //  - other instance: NeuronLink to the NIC nearest the source chip (several
  //    equally near: spread by NeuronCore index), its out link, the same NIC's
  //    in link on the destination instance, NeuronLink to the destination chip.
  // With DMA engines modelled, a message starts at its chip's DMA link (the
  // engines that issue it, and write it into the destination's memory), and
  // every chip it passes on the way (NeuronLink hops, the NIC's chip)
  // forwards it through its own DMA link: NeuronLink-v2 does not route
  // through a chip by itself.
  Route route(CoreLocation from, CoreLocation to) const;

 private:
  void checkLocation(CoreLocation where) const;
  // The chips a route from chip `from` to chip `to` visits after `from`.
  std::vector<int> chipPath(int from, int to) const;
  // The links, as offsets within an instance's, from chip `from` to chip
  // `to`: the NeuronLink hops, with the DMA forwarding of every chip in
  // between.
  std::vector<int> chipHops(int from, int to) const;
  // Appends chipHops(from, to) of instance `node`.
  void appendChipPath(int node, int from, int to, std::vector<int>& links) const;
  // Appends chip `chip`'s DMA link, where DMA engines are modelled.
  void appendDma(int node, int chip, std::vector<int>& links) const;
  int nodeBase(int node) const { return node * linksPerNode_; }
  // Link i as instance 0 has it: every instance's links are alike, and
  // instance 0's stay in the processor's caches while a big job's whole
  // link table does not.
  const DirectedLink& instanceLink(int i) const { return links_[static_cast<size_t>(i % linksPerNode_)]; }

  Topology topology_;
  ChipGraph graph_;
  std::map<std::pair<int, int>, int> directedByChips_;  // (from chip, to chip) -> offset within a node
  std::vector<std::vector<int>> nearestNics_;           // per chip
  std::vector<std::vector<int>> chipHops_;              // chipHops(from, to) at from * chips + to
  int linksPerNode_;
  std::vector<DirectedLink> links_;
};

}  // namespace trnccl::topo
