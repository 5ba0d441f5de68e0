#include "algorithms/cost_model.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>

#include "base/datatype.h"
#include "base/error.h"

namespace trnccl::algo {
namespace {

// What limited a phase: a link index, or one of these.
constexpr int kLatency = -1, kVectorEngine = -2;

// A path reduced to what the model needs; its links lie in a shared array.
struct Route {
  size_t firstLink = 0, linkCount = 0;
  double latency = 0;
  double secondsPerByte = 0;  // of the bottleneck link
};

// Asks the network for each (sender, receiver) path once per prediction, so
// the step loop allocates nothing.
class Routes {
 public:
  Routes(const Network& net, const std::vector<double>& linkSecondsPerByte)
      : net_(net), linkSecondsPerByte_(linkSecondsPerByte) {}

  const Route& between(int from, int to) {
    const uint64_t key = (uint64_t{static_cast<uint32_t>(from)} << 32) | static_cast<uint32_t>(to);
    const auto [it, added] = index_.try_emplace(key, routes_.size());
    if (added) routes_.push_back(resolve(from, to));
    return routes_[it->second];
  }
  const int* links(const Route& route) const { return links_.data() + route.firstLink; }

 private:
  Route resolve(int from, int to) {
    const Path path = net_.path(from, to);
    Route route{links_.size(), path.links.size(), path.latencySec, 0};
    for (int link : path.links) {
      if (link < 0 || link >= static_cast<int>(linkSecondsPerByte_.size()))
        throwError(trncclInternalError, "the network's path from rank " + std::to_string(from) + " to rank " +
                                            std::to_string(to) + " names link " + std::to_string(link) +
                                            ", but the network has " +
                                            std::to_string(linkSecondsPerByte_.size()) + " links");
      route.secondsPerByte = std::max(route.secondsPerByte, linkSecondsPerByte_[link]);
      links_.push_back(link);
    }
    return route;
  }

  const Network& net_;
  const std::vector<double>& linkSecondsPerByte_;
  std::unordered_map<uint64_t, size_t> index_;
  std::vector<Route> routes_;
  std::vector<int> links_;
};

// The three terms of one rank-channel's step chain.
struct Chain {
  double latency = 0, transfer = 0, reduction = 0;
  double seconds() const { return latency + transfer + reduction; }
};

// Per link, the bytes the current phase puts on it. Only the links a phase
// touched are scanned and reset, so a phase costs what it uses.
class LinkLoads {
 public:
  explicit LinkLoads(const std::vector<double>& secondsPerByte)
      : secondsPerByte_(secondsPerByte), bytes_(secondsPerByte.size(), 0) {}

  void add(const int* links, size_t count, double bytes) {
    if (bytes <= 0) return;
    for (size_t i = 0; i < count; ++i) {
      if (bytes_[links[i]] == 0) touched_.push_back(links[i]);
      bytes_[links[i]] += bytes;
    }
  }

  // The most loaded link of the phase (-1: none) and its busy time; resets.
  std::pair<int, double> takeBusiest() {
    std::pair<int, double> busiest{-1, 0.0};
    for (int link : touched_) {
      const double seconds = bytes_[link] * secondsPerByte_[link];
      if (seconds > busiest.second) busiest = {link, seconds};
      bytes_[link] = 0;
    }
    touched_.clear();
    return busiest;
  }

 private:
  const std::vector<double>& secondsPerByte_;
  std::vector<double> bytes_;
  std::vector<int> touched_;
};

// Predicted seconds per bound, over all phases.
class BoundTally {
 public:
  void add(int bound, double seconds) {
    for (auto& [b, s] : entries_)
      if (b == bound) {
        s += seconds;
        return;
      }
    entries_.emplace_back(bound, seconds);
  }
  std::string dominant(const Network& net) const {
    const auto top = std::max_element(entries_.begin(), entries_.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
    if (top == entries_.end() || top->second <= 0) return {};
    if (top->first == kLatency) return "latency";
    if (top->first == kVectorEngine) return "vector engine";
    return "link " + net.linkName(top->first);
  }

 private:
  std::vector<std::pair<int, double>> entries_;
};

// What dominated a phase whose longest chain is `chain` and whose most loaded
// link is `busiest`.
int phaseBound(const Chain& chain, std::pair<int, double> busiest) {
  if (busiest.first >= 0 && busiest.second >= chain.seconds()) return busiest.first;
  if (chain.reduction > chain.latency && chain.reduction >= chain.transfer) return kVectorEngine;
  if (chain.transfer > chain.latency && busiest.first >= 0) return busiest.first;
  return kLatency;
}

}  // namespace

Prediction predict(const std::vector<Schedule>& allRanks, const Network& net) {
  std::vector<double> linkSecondsPerByte(static_cast<size_t>(std::max(net.linkCount(), 0)));
  for (size_t link = 0; link < linkSecondsPerByte.size(); ++link) {
    const double bytesPerSec = net.linkBytesPerSec(static_cast<int>(link));
    if (!(bytesPerSec > 0))
      throwError(trncclInternalError, "network link '" + net.linkName(static_cast<int>(link)) +
                                          "' has no bandwidth (" + std::to_string(bytesPerSec) + " bytes/s)");
    linkSecondsPerByte[link] = 1 / bytesPerSec;
  }
  const double reduceBytesPerSec = net.reduceBytesPerSec();
  if (!(reduceBytesPerSec > 0))
    throwError(trncclInternalError, "the network's vector engine reduces " + std::to_string(reduceBytesPerSec) +
                                        " bytes/s; it must be positive");
  const double secondsPerReducedByte = 1 / reduceBytesPerSec;
  Routes routes(net, linkSecondsPerByte);
  LinkLoads loads(linkSecondsPerByte);
  BoundTally tally;
  Prediction prediction;

  size_t phases = 0;
  for (const Schedule& s : allRanks) phases = std::max(phases, s.phases.size());
  for (size_t phase = 0; phase < phases; ++phase) {
    Chain longest;
    for (const Schedule& s : allRanks) {
      if (phase >= s.phases.size()) continue;
      const double elementBytes = static_cast<double>(typeSize(s.type));
      for (const Channel& channel : s.phases[phase].channels) {
        Chain chain;
        for (const Step& step : channel.steps) {
          const double bytes = static_cast<double>(step.count) * elementBytes;
          if (step.recvPeer >= 0) {
            const Route& route = routes.between(step.recvPeer, s.rank);
            chain.latency += route.latency;
            chain.transfer += bytes * route.secondsPerByte;
            loads.add(routes.links(route), route.linkCount, bytes);
          }
          if (step.reduce) {
            const size_t inputs = step.srcs.size() + (step.recvPeer >= 0 ? 1 : 0);
            chain.reduction += static_cast<double>(std::max<size_t>(inputs, 2) - 1) * bytes * secondsPerReducedByte;
          }
        }
        if (chain.seconds() > longest.seconds()) longest = chain;
      }
    }
    const std::pair<int, double> busiest = loads.takeBusiest();
    const double seconds = std::max(longest.seconds(), busiest.second);
    tally.add(phaseBound(longest, busiest), seconds);
    prediction.seconds += seconds;
  }
  prediction.bound = tally.dominant(net);
  return prediction;
}

}  // namespace trnccl::algo
