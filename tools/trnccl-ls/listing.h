// What trnccl-ls shows, gathered once for both of its formats.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "options.h"
#include "topology/host.h"
#include "topology/rank_map.h"
#include "topology/topology.h"

namespace trnccl::ls {

struct ChipView {
  int node = 0, chip = 0;
  std::vector<int> coreRanks;   // the rank on each NeuronCore; -1: none
  std::vector<int> neighbours;  // chips NeuronLink joins it to, ascending
  std::vector<int> nics;        // EFA NICs next to it
};

struct Listing {
  topo::Topology topology;
  std::string order;  // "core", "chip" or the list given
  std::vector<topo::CoreLocation> ranks;
  std::vector<ChipView> chips;  // every chip of every instance, in node and chip order
  std::optional<topo::HostShape> host;
  std::string hostError;  // why there is no host
};

// Loads the topology and places the ranks; throws trnccl::Error on a bad
// topology or order.
Listing makeListing(const Options& options);

}  // namespace trnccl::ls
