#include "algorithms/lower_bound.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "base/datatype.h"

namespace trnccl::algo {
namespace {

// The ranks whose schedules are built: a root or an end of a chain may
// receive nothing, so one rank alone may bound nothing.
std::vector<int> boundingRanks(const CollectiveArgs& args, BoundRanks which) {
  std::vector<int> ranks{0};
  for (int r : {args.root, args.nranks - 1})
    if (which == BoundRanks::Bounding)
      if (r > 0 && r < args.nranks && std::find(ranks.begin(), ranks.end(), r) == ranks.end()) ranks.push_back(r);
  return ranks;
}

// Per link, the bytes and the issuing of the messages added, over the whole call.
class CallLoads {
 public:
  explicit CallLoads(const Network& net)
      : net_(net), loads_(static_cast<size_t>(std::max(net.linkCount(), 0))), recent_(16, {~uint64_t{0}, Path{}}) {}

  // `messages` messages of `bytes` in all.
  void add(int from, int to, double bytes, double messages) {
    const Path& path = pathOf(from, to);
    if (bytes > 0)
      for (int link : path.links) load(link).first += bytes;
    if (path.issueLink >= 0) load(path.issueLink).second += messages * path.issueSec;
  }

  double busiestSeconds() const {
    double busiest = 0;
    for (int link : touched_) {
      const auto& [bytes, issue] = loads_[static_cast<size_t>(link)];
      busiest = std::max(busiest, linkBusySeconds(bytes, net_.linkBytesPerSec(link), issue));
    }
    return busiest;
  }

 private:
  std::pair<double, double>& load(int link) {
    auto& l = loads_.at(static_cast<size_t>(link));
    if (l.first == 0 && l.second == 0) touched_.push_back(link);
    return l;
  }

  // A ring asks for the same few pairs step after step, a mesh for each pair
  // once: recent pairs are kept, not all.
  const Path& pathOf(int from, int to) {
    const uint64_t key = (uint64_t{static_cast<uint32_t>(from)} << 32) | static_cast<uint32_t>(to);
    auto& [cached, path] = recent_[(key * 0x9E3779B97F4A7C15ull) >> 60];
    if (cached != key) cached = key, path = net_.path(from, to);
    return path;
  }

  const Network& net_;
  std::vector<std::pair<double, double>> loads_;   // per link: bytes, issue seconds
  std::vector<int> touched_;                       // the links loaded, each once
  std::vector<std::pair<uint64_t, Path>> recent_;  // by the key's top 4 hash bits
};

}  // namespace

double lowerBound(const Algorithm& algorithm, const CollectiveArgs& args, const Network& net, BoundRanks which) {
  const std::vector<int> ranks = boundingRanks(args, which);
  const auto bounding = [&](int r) { return std::find(ranks.begin(), ranks.end(), r) != ranks.end(); };
  CostModel model(net);
  CallLoads loads(net);
  Step step;  // reused: the ranks' steps are generated a run at a time
  for (int r : ranks) {
    const std::unique_ptr<StepSource> source = algorithm.steps(argsOfRank(args, r));
    model.add(*source);
    const double elementBytes = static_cast<double>(typeSize(source->header().type));
    for (size_t p = 0; p < source->phases(); ++p)
      for (size_t c = 0; c < source->channels(p); ++c)
        for (size_t k = 0; k < source->length(p, c);) {
          const StepRun run = source->run(p, c, k, step);
          k += run.steps;
          const double bytes = static_cast<double>(run.totalCount) * elementBytes;
          const double messages = static_cast<double>(run.steps);
          if (step.recvPeer >= 0) loads.add(step.recvPeer, r, bytes, messages);
          // A message between two bounding ranks is counted by its receiver.
          if (step.sendPeer >= 0 && !bounding(step.sendPeer)) loads.add(r, step.sendPeer, bytes, messages);
        }
  }
  const double busiest = loads.busiestSeconds();
  return std::max(model.prediction().seconds, busiest > 0 ? busiest + net.launchSec() : 0.0);
}

}  // namespace trnccl::algo
