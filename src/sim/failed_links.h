// --fail-link A-B: the NeuronLink between chips A and B of every instance is
// gone, so the fabric routes around it and the algorithms and the tuner see
// the degraded machine.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "topology/topology.h"

namespace trnccl::sim {

using ChipPair = std::pair<int, int>;

// "3-7". Throws Error(InvalidArgument) naming --fail-link and the text.
ChipPair parseFailedLink(const std::string& text);

// Takes every link between each pair's chips out of `topology`. Throws
// Error(InvalidArgument) naming --fail-link and the chips when the topology
// has no link between them, or when the links left no longer join every chip.
void removeFailedLinks(const std::vector<ChipPair>& failed, topo::Topology& topology);

}  // namespace trnccl::sim
