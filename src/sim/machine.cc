#include "sim/machine.h"

#include "algorithms/network_model.h"
#include "base/error.h"
#include "topology/rank_map.h"

namespace trnccl::sim {

Machine::Machine(const std::string& topologySpec, const Knobs& knobs, int ranks, const std::string& rankOrder)
    : topology_(topo::loadTopology(topologySpec)) {
  applyKnobs(knobs, topology_);
  if (topology_.nodes > 1 && topology_.nics.empty())
    throwError(trncclInvalidArgument, "topology '" + topology_.name + "' has " + std::to_string(topology_.nodes) +
                                          " instances but no EFA NICs to join them");
  if (ranks < 0 || ranks > topology_.totalCores())
    throwError(trncclInvalidArgument, "--ranks " + std::to_string(ranks) + ": topology '" + topology_.name + "' has " +
                                          std::to_string(topology_.totalCores()) + " NeuronCores");
  cores_ = topo::mapRanks(topology_, ranks == 0 ? topology_.totalCores() : ranks, rankOrder, "--rank-order");
  fabric_ = std::make_unique<topo::Fabric>(topology_);
  layout_ = algo::topologyLayout(topology_, cores_);
  // The modelled machine itself: no host underneath carries the bytes.
  network_ = algo::fabricNetwork(topology_, *fabric_, cores_);
}

std::string Machine::describe() const {
  std::string text = topology_.name;
  if (topology_.nodes > 1) text += " x " + std::to_string(topology_.nodes) + " instances";
  return text + ", " + std::to_string(ranks()) + " ranks";
}

}  // namespace trnccl::sim
