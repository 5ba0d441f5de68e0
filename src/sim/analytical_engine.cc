#include "sim/analytical_engine.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace trnccl::sim {

namespace {

// Messages per link at each step index, keyed (phase, step, link).
uint64_t slotKey(size_t phase, size_t step, int link) {
  return (static_cast<uint64_t>(phase) << 48) | (static_cast<uint64_t>(step) << 24) | static_cast<uint32_t>(link);
}

}  // namespace

Prediction runAnalytical(const CompactSchedules& all, const algo::Network& net, const std::vector<double>& entrySec) {
  // Steps of one index (in one phase, over every channel and rank) run
  // together: the rank pairs they connect share each link they cross
  // equally. Every byte a link carries crosses it at its rate, whenever it
  // goes: the busiest link's bytes over its bandwidth bound the call below.
  std::unordered_map<uint64_t, algo::Path> paths;
  std::unordered_map<uint64_t, uint32_t> sharers;
  std::unordered_set<uint64_t> pairsSeen;
  size_t phases = 0;
  for (int r = 0; r < all.ranks(); ++r) phases = std::max(phases, all.phases(r));
  for (size_t p = 0; p < phases; ++p)
    for (size_t k = 0;; ++k) {
      bool any = false;
      for (int r = 0; r < all.ranks(); ++r) {
        if (p >= all.phases(r)) continue;
        for (size_t c = 0; c < all.channels(r, p); ++c) {
          if (k >= all.channelLength(r, p, c)) continue;
          any = true;
          const CompactStep step = all.step(r, p, c, k);
          if (step.sendPeer < 0) continue;
          const uint64_t key = (static_cast<uint64_t>(r) << 32) | static_cast<uint32_t>(step.sendPeer);
          auto [it, fresh] = paths.try_emplace(key);
          if (fresh) it->second = net.path(r, step.sendPeer);
          for (int l : it->second.links) {
            // A rank's messages to one peer queue behind each other (the
            // engines' per-peer order): a pair counts once per link.
            if (pairsSeen.insert(slotKey(p, k, l) * 0x9E3779B97F4A7C15ull ^ key).second) ++sharers[slotKey(p, k, l)];
          }
        }
      }
      if (!any) break;
    }
  const StaticRate shareOfStep = [&](int, size_t phase, size_t step, const algo::Path& path) {
    double rate = std::numeric_limits<double>::infinity();
    for (int l : path.links)
      rate = std::min(rate, net.linkBytesPerSec(l) / std::max<uint32_t>(1, sharers[slotKey(phase, step, l)]));
    return rate;
  };
  Prediction chain = runEvents(all, net, entrySec, Sharing::Static, &shareOfStep);
  // The chain's transfers carried every byte of the schedules: its per-link
  // bytes are the loads.
  int worst = -1;
  double loadSeconds = 0;
  for (int l = 0; l < net.linkCount(); ++l) {
    const double t = algo::linkBusySeconds(chain.linkBytes[l], net.linkBytesPerSec(l), chain.linkIssueSeconds[l]);
    if (t > loadSeconds) loadSeconds = t, worst = l;
  }
  if (loadSeconds > 0) loadSeconds += net.launchSec();
  if (loadSeconds > chain.seconds) {
    chain.seconds = loadSeconds;
    chain.bound = "link " + net.linkName(worst);
  }
  return chain;
}

Prediction runAnalytical(const std::vector<algo::Schedule>& all, const algo::Network& net,
                         const std::vector<double>& entrySec) {
  return runAnalytical(compact(all), net, entrySec);
}

}  // namespace trnccl::sim
