#include "topology/fabric.h"

#include <algorithm>
#include <limits>

#include "base/error.h"
#include "topology/torus.h"

namespace trnccl::topo {

// Within each instance's block of links: both directions of every NeuronLink
// (2i: a->b, 2i+1: b->a), then one on-chip link per chip, then an out and an
// in link per NIC, then (DMA engines modelled) one DMA link per chip, then
// (a NeuronSwitch) an out and an in port per chip and an up and a down link
// per server into the second-level switches.
namespace {

int onChipOffset(const Topology& t, int chip) { return 2 * static_cast<int>(t.links.size()) + chip; }
int efaOutOffset(const Topology& t, int nic) { return onChipOffset(t, t.chips) + 2 * nic; }
int efaInOffset(const Topology& t, int nic) { return efaOutOffset(t, nic) + 1; }
bool modelsDma(const Topology& t) { return t.engine.dmaBytesPerSec > 0; }
int dmaOffset(const Topology& t, int chip) { return efaOutOffset(t, static_cast<int>(t.nics.size())) + chip; }
int switchOutOffset(const Topology& t, int chip) {
  return (modelsDma(t) ? dmaOffset(t, t.chips) : efaOutOffset(t, static_cast<int>(t.nics.size()))) + 2 * chip;
}
int switchInOffset(const Topology& t, int chip) { return switchOutOffset(t, chip) + 1; }
int serverUpOffset(const Topology& t, int server) { return switchOutOffset(t, t.chips) + 2 * server; }
int serverDownOffset(const Topology& t, int server) { return serverUpOffset(t, server) + 1; }
int servers(const Topology& t) { return t.neuronSwitch.present() ? t.chips / t.neuronSwitch.chipsPerServer : 0; }
// Through a switch every other chip is one hop away.
std::vector<int> switchDistances(const Topology& t, int chip) {
  std::vector<int> hops(static_cast<size_t>(t.chips), 1);
  hops[static_cast<size_t>(chip)] = 0;
  return hops;
}
int linksPerInstance(const Topology& t) {
  return t.neuronSwitch.present() ? serverUpOffset(t, servers(t)) : switchOutOffset(t, 0);
}

std::string chipName(int node, int chip) { return "node" + std::to_string(node) + " chip" + std::to_string(chip); }

}  // namespace

Fabric::Fabric(const Topology& t)
    : topology_(t),
      graph_(t.chips, t.links),
      nearestNics_(static_cast<size_t>(t.chips)),
      linksPerNode_(linksPerInstance(t)) {
  if (t.nodes > 1 && t.nics.empty()) {
    throwError(trncclInvalidArgument, t.name + ": " + std::to_string(t.nodes) + " instances but no EFA NICs join them");
  }
  for (size_t i = 0; i < t.links.size(); ++i) {
    directedByChips_[{t.links[i].a, t.links[i].b}] = 2 * static_cast<int>(i);
    directedByChips_[{t.links[i].b, t.links[i].a}] = 2 * static_cast<int>(i) + 1;
  }
  for (int chip = 0; chip < t.chips; ++chip) {
    const std::vector<int> hops = t.neuronSwitch.present() ? switchDistances(t, chip) : graph_.distances(chip);
    int nearest = std::numeric_limits<int>::max();
    for (const Nic& nic : t.nics) nearest = std::min(nearest, hops[nic.chip]);
    for (size_t n = 0; n < t.nics.size(); ++n) {
      if (hops[t.nics[n].chip] == nearest) nearestNics_[chip].push_back(static_cast<int>(n));
    }
  }
  // Every instance routes alike between its chips: a 65,536-rank job asks
  // for millions of routes over the same few chip pairs.
  chipHops_.reserve(static_cast<size_t>(t.chips) * t.chips);
  for (int from = 0; from < t.chips; ++from)
    for (int to = 0; to < t.chips; ++to) chipHops_.push_back(chipHops(from, to));
  links_.reserve(static_cast<size_t>(linksPerNode_) * t.nodes);
  for (int node = 0; node < t.nodes; ++node) {
    for (const Link& l : t.links) {
      links_.push_back({chipName(node, l.a) + "->chip" + std::to_string(l.b), l.bytesPerSec, l.latencySec});
      links_.push_back({chipName(node, l.b) + "->chip" + std::to_string(l.a), l.bytesPerSec, l.latencySec});
    }
    for (int chip = 0; chip < t.chips; ++chip) {
      links_.push_back({chipName(node, chip) + " cores", t.onChipBytesPerSec, t.onChipLatencySec});
    }
    for (size_t n = 0; n < t.nics.size(); ++n) {
      const std::string nic = "node" + std::to_string(node) + " efa" + std::to_string(n);
      // The proxy posts each message before the NIC carries it.
      const double rate = t.nics[n].bytesPerSec * t.efaEfficiency;
      links_.push_back({nic + " out", rate, t.efaLatencySec + t.engine.proxySec});
      links_.push_back({nic + " in", rate, 0});
    }
    for (int chip = 0; modelsDma(t) && chip < t.chips; ++chip)
      links_.push_back({chipName(node, chip) + " dma", t.engine.dmaBytesPerSec, 0, t.engine.dmaMessageSec});
    const NeuronSwitch& sw = t.neuronSwitch;
    for (int chip = 0; sw.present() && chip < t.chips; ++chip) {
      links_.push_back({chipName(node, chip) + " switch out", sw.bytesPerSec, sw.latencySec});
      links_.push_back({chipName(node, chip) + " switch in", sw.bytesPerSec, 0});
    }
    // A server's traffic to the others: assumed non-blocking, its chips' ports in all.
    for (int server = 0; server < servers(t); ++server) {
      const std::string name = "node" + std::to_string(node) + " server" + std::to_string(server);
      const double rate = sw.bytesPerSec * sw.chipsPerServer;
      links_.push_back({name + " up", rate, sw.crossServerLatencySec});
      links_.push_back({name + " down", rate, 0});
    }
  }
}

void Fabric::checkLocation(CoreLocation where) const {
  const Topology& t = topology_;
  if (where.node < 0 || where.node >= t.nodes || where.chip < 0 || where.chip >= t.chips || where.core < 0 ||
      where.core >= t.coresPerChip) {
    throwError(trncclInvalidArgument, "route: NeuronCore " + std::to_string(where.core) + " of " +
                                          chipName(where.node, where.chip) + " does not exist in " + t.name + " (" +
                                          std::to_string(t.nodes) + " x " + std::to_string(t.chips) + " chips x " +
                                          std::to_string(t.coresPerChip) + " NeuronCores)");
  }
}

std::vector<int> Fabric::chipPath(int from, int to) const {
  if (topology_.torus.empty()) return graph_.shortestPath(from, to);
  std::vector<int> chips = torusPath(topology_.torus, from, to);
  for (int at = from; int chip : chips) {
    if (!directedByChips_.contains({at, chip})) return graph_.shortestPath(from, to);
    at = chip;
  }
  return chips;
}

std::vector<int> Fabric::chipHops(int from, int to) const {
  const NeuronSwitch& sw = topology_.neuronSwitch;
  if (from == to) return {};
  if (sw.present()) {  // the switches forward: no chip's DMA engines on the way
    std::vector<int> hops = {switchOutOffset(topology_, from)};
    if (sw.serverOf(from) != sw.serverOf(to))
      hops.insert(hops.end(),
                  {serverUpOffset(topology_, sw.serverOf(from)), serverDownOffset(topology_, sw.serverOf(to))});
    hops.push_back(switchInOffset(topology_, to));
    return hops;
  }
  std::vector<int> hops;
  for (int chip : chipPath(from, to)) {
    hops.push_back(directedByChips_.at({from, chip}));
    if (chip != to && modelsDma(topology_)) hops.push_back(dmaOffset(topology_, chip));
    from = chip;
  }
  return hops;
}

void Fabric::appendChipPath(int node, int from, int to, std::vector<int>& links) const {
  for (int hop : chipHops_[static_cast<size_t>(from * topology_.chips + to)]) links.push_back(nodeBase(node) + hop);
}

void Fabric::appendDma(int node, int chip, std::vector<int>& links) const {
  if (modelsDma(topology_)) links.push_back(nodeBase(node) + dmaOffset(topology_, chip));
}

Route Fabric::route(CoreLocation from, CoreLocation to) const {
  checkLocation(from);
  checkLocation(to);
  if (from == to) throwError(trncclInvalidArgument, "route: from and to are the same NeuronCore");
  const Topology& t = topology_;
  Route r;
  r.links.reserve(8);  // one allocation for most routes
  appendDma(from.node, from.chip, r.links);
  if (modelsDma(t)) r.issueLink = r.links.front(), r.issueSec = instanceLink(r.issueLink).messageSec;
  if (from.node == to.node && from.chip == to.chip) {
    r.links.push_back(nodeBase(from.node) + onChipOffset(t, from.chip));
  } else if (from.node == to.node) {
    appendChipPath(from.node, from.chip, to.chip, r.links);
  } else {
    const std::vector<int>& nearest = nearestNics_[from.chip];
    const int nic = nearest[static_cast<size_t>(from.core) % nearest.size()];
    const int nicChip = t.nics[nic].chip;
    appendChipPath(from.node, from.chip, nicChip, r.links);
    if (nicChip != from.chip) appendDma(from.node, nicChip, r.links);
    r.links.push_back(nodeBase(from.node) + efaOutOffset(t, nic));
    r.links.push_back(nodeBase(to.node) + efaInOffset(t, nic));
    if (nicChip != to.chip) appendDma(to.node, nicChip, r.links);
    appendChipPath(to.node, nicChip, to.chip, r.links);
  }
  r.bytesPerSec = std::numeric_limits<double>::infinity();
  for (int i : r.links) {
    const DirectedLink& link = instanceLink(i);
    r.latencySec += link.latencySec;
    r.bytesPerSec = std::min(r.bytesPerSec, link.bytesPerSec);
  }
  return r;
}

}  // namespace trnccl::topo
