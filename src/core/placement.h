// Where a communicator's ranks run on the modelled machine (TRNCCL_TOPO and
// TRNCCL_RANK_ORDER), and what follows from it: the layout the algorithms
// see (grid, instances), the network the tuner prices, and the paths the
// link emulation paces. Without a topology the ranks form a flat group on
// this host.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/layout.h"
#include "core/config.h"
#include "topology/fabric.h"
#include "transports/transport.h"

namespace trnccl::core {

class Placement {
 public:
  // `inheritedCores`: for a split, the global NeuronCore index of each new
  // rank, taken from the parent (null: map ranks afresh). `hostOf`: the real
  // host each rank runs on (numbered from 0); without a topology each host
  // is an instance, with one the topology's instances must not straddle hosts
  // (empty: all on this host). `coreShare`: the share of a core each rank
  // has to move its bytes when they move through the host (HostCensus).
  Placement(const Config& config, int nranks, const std::vector<int>* inheritedCores,
            const std::vector<int>& hostOf = {}, double coreShare = 1);
  ~Placement();

  const topo::Topology* topology() const { return topology_ ? &*topology_ : nullptr; }
  const algo::RankLayout& layout() const { return layout_; }
  const algo::Network& network() const { return *network_; }
  // Global NeuronCore index per rank; empty without a topology.
  std::vector<int> globalCores() const;
  // The paced paths from `rank` to every rank, every time scaled by `scale`.
  transport::LinkEmulation emulation(int rank, double scale) const;
  // "trn1.32xlarge (1 node), rank 3 on chip 1 core 1, grid 8 x 4"
  std::string describe(int rank) const;

 private:
  std::optional<topo::Topology> topology_;
  std::vector<topo::CoreLocation> cores_;
  std::unique_ptr<topo::Fabric> fabric_;
  algo::RankLayout layout_;
  std::unique_ptr<algo::Network> network_;
};

}  // namespace trnccl::core
