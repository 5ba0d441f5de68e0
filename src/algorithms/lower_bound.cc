#include "algorithms/lower_bound.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/datatype.h"

namespace trnccl::algo {
namespace {

// The ranks whose schedules are built: a root or an end of a chain may
// receive nothing, so one rank alone may bound nothing.
std::vector<int> boundingRanks(const CollectiveArgs& args) {
  std::vector<int> ranks{0};
  for (int r : {args.root, args.nranks - 1})
    if (r > 0 && r < args.nranks && std::find(ranks.begin(), ranks.end(), r) == ranks.end()) ranks.push_back(r);
  return ranks;
}

// Per link, the bytes and the issuing of the messages added, over the whole call.
class CallLoads {
 public:
  explicit CallLoads(const Network& net) : net_(net) {}

  void add(int from, int to, double bytes) {
    const Path& path = pathOf(from, to);
    if (bytes > 0)
      for (int link : path.links) loads_[link].first += bytes;
    if (path.issueLink >= 0) loads_[path.issueLink].second += path.issueSec;
  }

  double busiestSeconds() const {
    double busiest = 0;
    for (const auto& [link, load] : loads_)
      busiest = std::max(busiest, linkBusySeconds(load.first, net_.linkBytesPerSec(link), load.second));
    return busiest;
  }

 private:
  const Path& pathOf(int from, int to) {
    auto [it, fresh] = paths_.try_emplace((uint64_t{static_cast<uint32_t>(from)} << 32) | static_cast<uint32_t>(to));
    if (fresh) it->second = net_.path(from, to);
    return it->second;
  }

  const Network& net_;
  std::unordered_map<uint64_t, Path> paths_;                  // each asked for once
  std::unordered_map<int, std::pair<double, double>> loads_;  // bytes, issue seconds
};

}  // namespace

double lowerBound(const Algorithm& algorithm, const CollectiveArgs& args, const Network& net) {
  const std::vector<int> ranks = boundingRanks(args);
  const auto bounding = [&](int r) { return std::find(ranks.begin(), ranks.end(), r) != ranks.end(); };
  CostModel model(net);
  CallLoads loads(net);
  for (int r : ranks) {
    const Schedule s = algorithm.build(argsOfRank(args, r));
    model.add(s);
    const double elementBytes = static_cast<double>(typeSize(s.type));
    for (const Phase& phase : s.phases)
      for (const Channel& channel : phase.channels)
        for (const Step& step : channel.steps) {
          const double bytes = static_cast<double>(step.count) * elementBytes;
          if (step.recvPeer >= 0) loads.add(step.recvPeer, r, bytes);
          // A message between two bounding ranks is counted by its receiver.
          if (step.sendPeer >= 0 && !bounding(step.sendPeer)) loads.add(r, step.sendPeer, bytes);
        }
  }
  const double busiest = loads.busiestSeconds();
  return std::max(model.prediction().seconds, busiest > 0 ? busiest + net.launchSec() : 0.0);
}

}  // namespace trnccl::algo
