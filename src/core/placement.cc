#include "core/placement.h"

#include <algorithm>
#include <set>

#include "algorithms/network_model.h"
#include "base/error.h"

namespace trnccl::core {

Placement::Placement(const Config& config, int nranks, const std::vector<int>* inheritedCores,
                     const std::vector<int>& hostOf, double coreShare) {
  if (config.topology.empty()) {
    if (std::any_of(hostOf.begin(), hostOf.end(), [](int h) { return h > 0; })) layout_.instanceOf = hostOf;
    network_ = algo::hostNetwork(nranks, algo::HostCarriage{coreShare});
    return;
  }
  try {
    topology_ = topo::loadTopology(config.topology);
  } catch (const Error& e) {
    throwError(e.code(), config.topologySource + ": " + e.what());
  }
  const topo::Topology& t = *topology_;
  if (inheritedCores) {
    for (int global : *inheritedCores) cores_.push_back(topo::coreLocation(t, global));
  } else {
    cores_ = topo::mapRanks(t, nranks, config.rankOrder, "TRNCCL_RANK_ORDER");
  }
  // An instance is one machine: its ranks share memory.
  for (int r = 1; r < static_cast<int>(hostOf.size()); ++r)
    for (int q = 0; q < r; ++q)
      if (cores_[q].node == cores_[r].node && hostOf[q] != hostOf[r])
        throwError(trncclInvalidUsage, config.topologySource + "='" + config.topology + "' puts ranks " +
                                           std::to_string(q) + " and " + std::to_string(r) + " on instance " +
                                           std::to_string(cores_[r].node) +
                                           ", but they run on different hosts: give each host its own "
                                           "instance (e.g. '" +
                                           t.name + ":N') or reorder the ranks");
  fabric_ = std::make_unique<topo::Fabric>(t);
  layout_ = algo::topologyLayout(t, cores_);
  network_ = config.emulateLinks ? algo::fabricNetwork(t, *fabric_, cores_)
                                 : algo::fabricNetwork(t, *fabric_, cores_, algo::HostCarriage{coreShare});
}

Placement::~Placement() = default;

std::vector<int> Placement::globalCores() const {
  std::vector<int> global;
  for (const auto& c : cores_) global.push_back(topo::globalCoreIndex(*topology_, c));
  return global;
}

transport::LinkEmulation Placement::emulation(int rank, double scale) const {
  transport::LinkEmulation e;
  if (!fabric_) return e;
  e.scale = scale;
  for (int l = 0; l < fabric_->linkCount(); ++l) e.linkBytesPerSec.push_back(fabric_->link(l).bytesPerSec);
  const int n = static_cast<int>(cores_.size());
  e.pathTo.resize(n);
  e.latencyTo.assign(n, 0);
  e.issueTo.assign(n, 0);
  for (int peer = 0; peer < n; ++peer) {
    if (peer == rank) continue;
    topo::Route route = fabric_->route(cores_[rank], cores_[peer]);
    e.pathTo[peer] = std::move(route.links);
    e.latencyTo[peer] = route.latencySec;
    e.issueTo[peer] = route.issueSec;
  }
  return e;
}

std::string Placement::describe(int rank) const {
  if (!topology_) return "no topology (TRNCCL_TOPO unset): a flat group on this host";
  const topo::Topology& t = *topology_;
  const topo::CoreLocation& c = cores_.at(rank);
  std::string text = t.name + " (" + std::to_string(t.nodes) + (t.nodes == 1 ? " node" : " nodes") + "), rank " +
                     std::to_string(rank) + " on node " + std::to_string(c.node) + " chip " + std::to_string(c.chip) +
                     " core " + std::to_string(c.core);
  if (layout_.hasGrid())
    text += ", grid " + std::to_string(layout_.gridWidth) + " x " + std::to_string(layout_.gridHeight);
  if (!layout_.instanceOf.empty()) text += ", " + std::to_string(layout_.instances()) + " instances";
  return text;
}

}  // namespace trnccl::core
