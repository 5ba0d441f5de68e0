#include "json_listing.h"

namespace trnccl::ls {

namespace {

using nlohmann::json;

json topologyJson(const topo::Topology& t) {
  json links = json::array();
  for (const topo::Link& l : t.links) {
    links.push_back({{"a", l.a}, {"b", l.b}, {"bytesPerSec", l.bytesPerSec}, {"latencySec", l.latencySec}});
  }
  json nics = json::array();
  for (const topo::Nic& n : t.nics) nics.push_back({{"chip", n.chip}, {"bytesPerSec", n.bytesPerSec}});
  return {{"name", t.name},
          {"file", t.file},
          {"nodes", t.nodes},
          {"chipsPerNode", t.chips},
          {"coresPerChip", t.coresPerChip},
          {"totalCores", t.totalCores()},
          {"device",
           {{"generation", t.device.generation},
            {"core", t.device.core},
            {"hbmBytes", t.device.hbmBytes},
            {"hbmBytesPerSec", t.device.hbmBytesPerSec},
            {"dmaBytesPerSec", t.device.dmaBytesPerSec}}},
          {"onChip", {{"bytesPerSec", t.onChipBytesPerSec}, {"latencySec", t.onChipLatencySec}}},
          {"neuronLink", {{"torus", t.torus}, {"links", links}}},
          {"efa", {{"nics", nics}, {"latencySec", t.efaLatencySec}}}};
}

json chipJson(const topo::Topology& t, const ChipView& v) {
  json cores = json::array();
  for (int core = 0; core < t.coresPerChip; ++core) {
    const int rank = v.coreRanks[core];
    cores.push_back({{"core", core},
                     {"index", topo::globalCoreIndex(t, {v.node, v.chip, core})},
                     {"rank", rank < 0 ? json(nullptr) : json(rank)}});
  }
  return {{"node", v.node},
          {"chip", v.chip},
          {"hbmBytes", t.device.hbmBytes},
          {"neuronCores", cores},
          {"connectedChips", v.neighbours},
          {"nics", v.nics}};
}

json hostJson(const Listing& l) {
  if (!l.host) return {{"error", l.hostError}};
  json caches = json::array();
  for (const auto& [level, bytes] : l.host->caches) caches.push_back({{"level", level}, {"bytes", bytes}});
  return {{"packages", l.host->packages},
          {"numaNodes", l.host->numaNodes},
          {"cores", l.host->cores},
          {"pus", l.host->pus},
          {"caches", caches},
          {"description", l.host->describe()}};
}

}  // namespace

json jsonListing(const Listing& l) {
  json chips = json::array();
  for (const ChipView& v : l.chips) chips.push_back(chipJson(l.topology, v));
  json ranks = json::array();
  for (const topo::CoreLocation& where : l.ranks) {
    ranks.push_back({{"node", where.node}, {"chip", where.chip}, {"core", where.core}});
  }
  return {{"topology", topologyJson(l.topology)},
          {"order", l.order},
          {"ranks", ranks},
          {"chips", chips},
          {"host", hostJson(l)}};
}

}  // namespace trnccl::ls
