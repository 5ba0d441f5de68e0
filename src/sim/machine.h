// The machine a simulation runs on: a topology (a shipped name or a file,
// optionally "name:N" instances) with the knobs applied, and the ranks placed
// on its NeuronCores exactly as a job would place them (TRNCCL_RANK_ORDER's
// orders), with the layout the algorithms see and the network the cost model
// and the event engine price.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/layout.h"
#include "sim/knobs.h"
#include "topology/fabric.h"
#include "topology/topology.h"

namespace trnccl::sim {

class Machine {
 public:
  // `ranks` 0: one rank per NeuronCore of every instance. Throws
  // Error(InvalidArgument) naming what cannot be used.
  Machine(const std::string& topologySpec, const Knobs& knobs, int ranks = 0, const std::string& rankOrder = "core");

  const topo::Topology& topology() const { return topology_; }
  const topo::Fabric& fabric() const { return *fabric_; }
  int ranks() const { return static_cast<int>(cores_.size()); }
  const std::vector<topo::CoreLocation>& cores() const { return cores_; }  // per rank
  const algo::RankLayout& layout() const { return layout_; }
  const algo::Network& network() const { return *network_; }
  // "trn1.32xlarge x 2 instances, 64 ranks"
  std::string describe() const;

 private:
  topo::Topology topology_;
  std::unique_ptr<topo::Fabric> fabric_;
  std::vector<topo::CoreLocation> cores_;
  algo::RankLayout layout_;
  std::unique_ptr<algo::Network> network_;
};

}  // namespace trnccl::sim
