#include "sim/failed_links.h"

#include <algorithm>
#include <charconv>

#include "base/error.h"
#include "topology/chip_graph.h"

namespace trnccl::sim {
namespace {

std::string flagText(ChipPair chips) {
  return "--fail-link " + std::to_string(chips.first) + "-" + std::to_string(chips.second);
}

}  // namespace

ChipPair parseFailedLink(const std::string& text) {
  ChipPair chips{-1, -1};
  const char* const end = text.data() + text.size();
  const auto first = std::from_chars(text.data(), end, chips.first);
  const bool dash = first.ec == std::errc() && first.ptr != end && *first.ptr == '-';
  const auto second = dash ? std::from_chars(first.ptr + 1, end, chips.second) : first;
  if (!dash || second.ec != std::errc() || second.ptr != end || chips.first < 0 || chips.second < 0 ||
      chips.first == chips.second)
    throwError(trncclInvalidArgument, "--fail-link '" + text +
                                          "': expected CHIP-CHIP, two different chips of the "
                                          "instance (3-7)");
  return chips;
}

void removeFailedLinks(const std::vector<ChipPair>& failed, topo::Topology& t) {
  for (const ChipPair& chips : failed) {
    const auto pair = std::minmax(chips.first, chips.second);
    if (std::erase_if(t.links, [&](const topo::Link& l) { return std::minmax(l.a, l.b) == pair; }) == 0)
      throwError(trncclInvalidArgument, flagText(chips) + ": " + t.name + " has no NeuronLink between chip " +
                                            std::to_string(chips.first) + " and chip " + std::to_string(chips.second) +
                                            " (chips 0-" + std::to_string(t.chips - 1) + ")");
    const std::vector<int> hops = topo::ChipGraph(t.chips, t.links).distances(chips.first);
    const auto cut = std::find(hops.begin(), hops.end(), -1);
    if (cut != hops.end())
      throwError(trncclInvalidArgument, flagText(chips) + ": with it failed, chip " +
                                            std::to_string(cut - hops.begin()) + " of " + t.name +
                                            " has no NeuronLink path to chip " + std::to_string(chips.first));
  }
}

}  // namespace trnccl::sim
