#include "listing.h"

#include <algorithm>

#include "base/error.h"

namespace trnccl::ls {

namespace {

std::vector<ChipView> chipViews(const topo::Topology& t, const std::vector<topo::CoreLocation>& ranks) {
  std::vector<ChipView> instance(static_cast<size_t>(t.chips));
  for (int chip = 0; chip < t.chips; ++chip) {
    instance[chip].chip = chip;
    instance[chip].coreRanks.assign(static_cast<size_t>(t.coresPerChip), -1);
  }
  for (const topo::Link& l : t.links) {
    instance[l.a].neighbours.push_back(l.b);
    instance[l.b].neighbours.push_back(l.a);
  }
  for (ChipView& v : instance) std::sort(v.neighbours.begin(), v.neighbours.end());
  for (size_t n = 0; n < t.nics.size(); ++n) instance[t.nics[n].chip].nics.push_back(static_cast<int>(n));

  std::vector<ChipView> views;
  for (int node = 0; node < t.nodes; ++node) {
    for (ChipView v : instance) {
      v.node = node;
      views.push_back(std::move(v));
    }
  }
  for (size_t rank = 0; rank < ranks.size(); ++rank) {
    const topo::CoreLocation& where = ranks[rank];
    views[static_cast<size_t>(where.node) * t.chips + where.chip].coreRanks[where.core] = static_cast<int>(rank);
  }
  return views;
}

// How many ranks to list when none are asked for: all the order can place.
int defaultRanks(const topo::Topology& t, const std::string& order) {
  if (order == "core") return t.totalCores();
  if (order == "chip") return t.nodes * t.chips;
  return static_cast<int>(std::count(order.begin(), order.end(), ',')) + 1;  // a list: one rank per entry
}

}  // namespace

Listing makeListing(const Options& options) {
  Listing l;
  l.topology = topo::loadTopology(options.topology);
  l.order = options.order.empty() ? "core" : options.order;
  const int nranks = options.ranks.value_or(defaultRanks(l.topology, l.order));
  l.ranks = topo::mapRanks(l.topology, nranks, l.order, "--order " + l.order);
  l.chips = chipViews(l.topology, l.ranks);
  try {
    l.host = topo::discoverHost();
  } catch (const Error& e) {
    l.hostError = e.what();  // the listing is still worth having without the host
  }
  return l;
}

}  // namespace trnccl::ls
