#include "topology/rank_map.h"

#include <charconv>
#include <numeric>
#include <unordered_map>

#include "base/error.h"
#include "topology/torus.h"

namespace trnccl::topo {

namespace {

std::string instancesText(int n) { return std::to_string(n) + (n == 1 ? " instance" : " instances"); }

// "trn1.2xlarge has 2 NeuronCores; 8 ranks need trn1.2xlarge:4"
[[noreturn]] void tooManyRanks(const Topology& t, const std::string& source, int nranks, int perNode,
                               const std::string& what) {
  const int needed = (nranks + perNode - 1) / perNode;
  const std::string enough =
      needed > kMaxNodes ? "more than " + instancesText(kMaxNodes) : t.name + ":" + std::to_string(needed);
  throwError(trncclInvalidArgument, source + ": " + t.name + " with " + instancesText(t.nodes) + " has " +
                                        std::to_string(perNode * t.nodes) + " " + what + "; " + std::to_string(nranks) +
                                        " ranks need " + enough);
}

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(' ');
  return first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(' ') + 1 - first);
}

std::vector<CoreLocation> listedOrder(const Topology& t, int nranks, const std::string& order,
                                      const std::string& source) {
  std::vector<CoreLocation> where;
  std::unordered_map<int, int> rankOnCore;  // a job may have far fewer ranks than NeuronCores
  for (size_t start = 0; start <= order.size();) {
    size_t end = order.find(',', start);
    if (end == std::string::npos) end = order.size();
    const std::string entry = trimmed(order.substr(start, end - start));
    const int rank = static_cast<int>(where.size());
    int core = 0;
    const auto [stop, error] = std::from_chars(entry.data(), entry.data() + entry.size(), core);
    if (error != std::errc() || stop != entry.data() + entry.size() || core < 0) {
      throwError(trncclInvalidArgument, source + ": entry " + std::to_string(rank) + " of '" + order + "' ('" + entry +
                                            "') is not a NeuronCore index");
    }
    if (core >= t.totalCores()) {
      throwError(trncclInvalidArgument, source + ": NeuronCore " + std::to_string(core) + " (rank " +
                                            std::to_string(rank) + ") does not exist: " + t.name + " with " +
                                            instancesText(t.nodes) + " has NeuronCores 0 to " +
                                            std::to_string(t.totalCores() - 1));
    }
    if (auto [it, added] = rankOnCore.try_emplace(core, rank); !added) {
      throwError(trncclInvalidArgument, source + ": ranks " + std::to_string(it->second) + " and " +
                                            std::to_string(rank) + " are both placed on NeuronCore " +
                                            std::to_string(core));
    }
    where.push_back(coreLocation(t, core));
    start = end + 1;
  }
  if (static_cast<int>(where.size()) != nranks) {
    throwError(trncclInvalidArgument, source + ": '" + order + "' places " + std::to_string(where.size()) +
                                          " ranks, but there are " + std::to_string(nranks));
  }
  return where;
}

}  // namespace

int globalCoreIndex(const Topology& t, CoreLocation where) {
  return where.node * t.coresPerNode() + where.chip * t.coresPerChip + where.core;
}

CoreLocation coreLocation(const Topology& t, int globalCore) {
  return {globalCore / t.coresPerNode(), globalCore % t.coresPerNode() / t.coresPerChip, globalCore % t.coresPerChip};
}

std::vector<int> chipRingOrder(const Topology& t) {
  if (!t.torus.empty()) return torusRingOrder(t.torus);
  std::vector<int> chips(static_cast<size_t>(t.chips));
  std::iota(chips.begin(), chips.end(), 0);
  return chips;
}

std::vector<CoreLocation> mapRanks(const Topology& t, int nranks, const std::string& order, const std::string& source) {
  if (nranks < 1) throwError(trncclInvalidArgument, source + ": " + std::to_string(nranks) + " ranks is not a job");
  const bool spread = order == "spread";
  const bool perCore = order.empty() || order == "core" || spread;
  if (!perCore && order != "chip") {
    if (order.find_first_not_of("0123456789, ") != std::string::npos) {
      throwError(trncclInvalidArgument,
                 source + ": '" + order + "' is not 'core', 'chip', 'spread' or a comma list of NeuronCore indices");
    }
    return listedOrder(t, nranks, order, source);
  }
  const int perNode = perCore ? t.coresPerNode() : t.chips;
  if (nranks > perNode * t.nodes)
    tooManyRanks(t, source, nranks, perNode, perCore ? "NeuronCores" : "chips (order 'chip' runs one rank per chip)");
  if (spread && nranks % t.nodes != 0)
    throwError(trncclInvalidArgument, source + ": order 'spread' puts as many ranks on each of the " +
                                          std::to_string(t.nodes) + " instances, which " + std::to_string(nranks) +
                                          " ranks do not divide into");
  // Ranks an instance takes before the next: all of its NeuronCores (core,
  // chip), or an even share of the job (spread).
  const int fill = spread ? nranks / t.nodes : perNode;
  const std::vector<int> ring = chipRingOrder(t);
  std::vector<CoreLocation> where;
  for (int r = 0; r < nranks; ++r) {
    const int inNode = r % fill;
    if (perCore) {
      where.push_back({r / fill, ring[inNode / t.coresPerChip], inNode % t.coresPerChip});
    } else {
      where.push_back({r / fill, ring[inNode], 0});
    }
  }
  return where;
}

}  // namespace trnccl::topo
