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
constexpr int kLatency = -1, kVectorEngine = -2, kLaunch = -3;

// A path reduced to what the model needs; its links lie in a shared array.
struct Route {
  size_t firstLink = 0, linkCount = 0;
  double latency = 0;
  double secondsPerByte = 0;  // of the bottleneck link
  int issueLink = -1;
  double issueSeconds = 0;
};

// Asks the network for each (sender, receiver) path once per prediction, so
// the step loop allocates nothing.
class Routes {
 public:
  Routes(const Network& net, const std::vector<double>& linkSecondsPerByte)
      : net_(net), linkSecondsPerByte_(linkSecondsPerByte) {}

  const Route& between(int from, int to) {
    const uint64_t key = (uint64_t{static_cast<uint32_t>(from)} << 32) | static_cast<uint32_t>(to);
    // A ring's channel asks for the same pair step after step.
    if (key == lastKey_) return routes_[lastIndex_];
    const auto [it, added] = index_.try_emplace(key, routes_.size());
    if (added) routes_.push_back(resolve(from, to));
    lastKey_ = key, lastIndex_ = it->second;
    return routes_[it->second];
  }
  const int* links(const Route& route) const { return links_.data() + route.firstLink; }

 private:
  Route resolve(int from, int to) {
    const Path path = net_.path(from, to);
    Route route{
        links_.size(), path.links.size(), path.latencySec, 0, path.issueLink, path.issueLink >= 0 ? path.issueSec : 0};
    for (int link : path.links) {
      checkLink(from, to, link);
      route.secondsPerByte = std::max(route.secondsPerByte, linkSecondsPerByte_[link]);
      links_.push_back(link);
    }
    if (path.issueLink >= 0) checkLink(from, to, path.issueLink);
    return route;
  }

  void checkLink(int from, int to, int link) const {
    if (link < 0 || link >= static_cast<int>(linkSecondsPerByte_.size()))
      throwError(trncclInternalError, "the network's path from rank " + std::to_string(from) + " to rank " +
                                          std::to_string(to) + " names link " + std::to_string(link) +
                                          ", but the network has " + std::to_string(linkSecondsPerByte_.size()) +
                                          " links");
  }

  const Network& net_;
  const std::vector<double>& linkSecondsPerByte_;
  std::unordered_map<uint64_t, size_t> index_;
  std::vector<Route> routes_;
  std::vector<int> links_;
  uint64_t lastKey_ = ~uint64_t{0};
  size_t lastIndex_ = 0;
};

// The terms of one rank-channel's step chain (issue: its messages' issuing).
struct Chain {
  double latency = 0, issue = 0, transfer = 0, reduction = 0;
  double seconds() const { return latency + issue + transfer + reduction; }
  // `o` run by the same thread after this chain's work: the work (issuing,
  // moving, reducing) adds up; the waits for the routes overlap.
  Chain& then(const Chain& o) {
    latency = std::max(latency, o.latency);
    issue += o.issue, transfer += o.transfer, reduction += o.reduction;
    return *this;
  }
};

// Per link, the bytes one phase puts on it and the time issuing its messages
// holds it. Only the links the phase touched are scanned, so a phase costs
// what it uses.
class LinkLoads {
 public:
  explicit LinkLoads(const std::vector<double>& secondsPerByte)
      : secondsPerByte_(&secondsPerByte), bytes_(secondsPerByte.size(), 0), issueSeconds_(secondsPerByte.size(), 0) {}

  void add(const int* links, size_t count, double bytes, int issueLink, double issueSeconds) {
    for (size_t i = 0; bytes > 0 && i < count; ++i) {
      if (bytes_[links[i]] == 0 && issueSeconds_[links[i]] == 0) touched_.push_back(links[i]);
      bytes_[links[i]] += bytes;
    }
    // An empty message is issued too (its semaphore write).
    if (issueLink >= 0 && issueSeconds > 0) {
      if (bytes_[issueLink] == 0 && issueSeconds_[issueLink] == 0) touched_.push_back(issueLink);
      issueSeconds_[issueLink] += issueSeconds;
    }
  }

  void addTo(std::vector<double>& total) const {
    for (int link : touched_) total[link] += bytes_[link];
  }

  // Whether issuing its messages held `link` longer than its bytes did.
  bool issueBound(int link) const { return issueSeconds_[link] > bytes_[link] * (*secondsPerByte_)[link]; }

  // The most loaded link (-1: none) and its busy time.
  std::pair<int, double> busiest() const {
    std::pair<int, double> busiest{-1, 0.0};
    for (int link : touched_) {
      const double seconds = linkBusySeconds(bytes_[link], 1 / (*secondsPerByte_)[link], issueSeconds_[link]);
      if (seconds > busiest.second) busiest = {link, seconds};
    }
    return busiest;
  }

 private:
  const std::vector<double>* secondsPerByte_;
  std::vector<double> bytes_, issueSeconds_;
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
    if (top->first == kLaunch) return "launch";
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
  if (chain.transfer + chain.issue > chain.latency && busiest.first >= 0) return busiest.first;
  return kLatency;
}

std::vector<double> secondsPerByteOf(const Network& net) {
  std::vector<double> linkSecondsPerByte(static_cast<size_t>(std::max(net.linkCount(), 0)));
  for (size_t link = 0; link < linkSecondsPerByte.size(); ++link) {
    const double bytesPerSec = net.linkBytesPerSec(static_cast<int>(link));
    if (!(bytesPerSec > 0))
      throwError(trncclInternalError, "network link '" + net.linkName(static_cast<int>(link)) + "' has no bandwidth (" +
                                          std::to_string(bytesPerSec) + " bytes/s)");
    linkSecondsPerByte[link] = 1 / bytesPerSec;
  }
  return linkSecondsPerByte;
}

double secondsPerReducedByteOf(const Network& net) {
  const double reduceBytesPerSec = net.reduceBytesPerSec();
  if (!(reduceBytesPerSec > 0))
    throwError(trncclInternalError, "the network's vector engine reduces " + std::to_string(reduceBytesPerSec) +
                                        " bytes/s; it must be positive");
  return 1 / reduceBytesPerSec;
}

}  // namespace

// Per phase index: the longest rank-channel chain and the links' loads so far.
struct CostModel::State {
  explicit State(const Network& n)
      : net(n),
        linkSecondsPerByte(secondsPerByteOf(n)),
        secondsPerReducedByte(secondsPerReducedByteOf(n)),
        reduceSlices(n.reduceSlices()),
        routes(n, linkSecondsPerByte) {}

  const Network& net;
  std::vector<double> linkSecondsPerByte;
  double secondsPerReducedByte;
  double reduceSlices;
  Routes routes;
  std::vector<Chain> longest;
  std::vector<LinkLoads> loads;
  Step step;  // the step being added, reused
};

CostModel::CostModel(const Network& net) : state_(std::make_unique<State>(net)) {}
CostModel::~CostModel() = default;

void CostModel::add(const Schedule& s) { add(ScheduleSource(&s)); }

void CostModel::add(const StepSource& source) {
  State& st = *state_;
  const size_t phases = source.phases();
  while (st.longest.size() < phases) {
    st.longest.emplace_back();
    st.loads.emplace_back(st.linkSecondsPerByte);
  }
  const int rank = source.header().rank;
  const double elementBytes = static_cast<double>(typeSize(source.header().type));
  Step& step = st.step;
  const bool serial = st.net.channelsShareRank();
  for (size_t phase = 0; phase < phases; ++phase) {
    Chain rankChain;  // serial: the phase's channels, one after another
    for (size_t channel = 0; channel < source.channels(phase); ++channel) {
      Chain chain;
      const size_t length = source.length(phase, channel);
      // A run of steps that price alike adds up as its steps would: every
      // term is linear in the bytes, or the same for each step.
      for (size_t k = 0; k < length;) {
        const StepRun run = source.run(phase, channel, k, step);
        k += run.steps;
        const double steps = static_cast<double>(run.steps);
        const double bytes = static_cast<double>(run.totalCount) * elementBytes;
        double transfer = 0;  // the received message's, over its route's bottleneck
        if (step.recvPeer >= 0) {
          const Route& route = st.routes.between(step.recvPeer, rank);
          transfer = bytes * route.secondsPerByte;
          chain.latency += steps * route.latency;
          chain.transfer += transfer;
          chain.issue += steps * route.issueSeconds;
          st.loads[phase].add(st.routes.links(route), route.linkCount, bytes, route.issueLink,
                              steps * route.issueSeconds);
        }
        if (step.reduce) {
          const size_t inputs = step.srcs.size() + (step.recvPeer >= 0 ? 1 : 0);
          const double reduce = static_cast<double>(std::max<size_t>(inputs, 2) - 1) * bytes * st.secondsPerReducedByte;
          // Linear in the bytes like the rest: a run's steps share one ratio of reduction to transfer.
          chain.reduction += exposedReduceSeconds(reduce, transfer, st.reduceSlices);
        }
      }
      if (serial)
        rankChain.then(chain);
      else if (chain.seconds() > st.longest[phase].seconds())
        st.longest[phase] = chain;
    }
    if (serial && rankChain.seconds() > st.longest[phase].seconds()) st.longest[phase] = rankChain;
  }
}

Prediction CostModel::prediction() const {
  const State& st = *state_;
  BoundTally tally;
  Prediction prediction;
  for (size_t phase = 0; phase < st.longest.size(); ++phase) {
    const std::pair<int, double> busiest = st.loads[phase].busiest();
    const Chain& chain = st.longest[phase];
    const double seconds = std::max(chain.seconds(), busiest.second);
    tally.add(phaseBound(chain, busiest), seconds);
    prediction.seconds += seconds;
    TimeParts& parts = prediction.parts;
    if (busiest.first >= 0 && busiest.second >= chain.seconds()) {
      (st.loads[phase].issueBound(busiest.first) ? parts.latency : parts.bandwidth) += busiest.second;
    } else {
      parts.latency += chain.latency + chain.issue;
      parts.bandwidth += chain.transfer;
      parts.reduction += chain.reduction;
    }
  }
  if (prediction.seconds > 0) {  // a call that moves nothing is not launched
    tally.add(kLaunch, st.net.launchSec());
    prediction.seconds += st.net.launchSec();
    prediction.parts.launch = st.net.launchSec();
  }
  prediction.bound = tally.dominant(st.net);
  return prediction;
}

std::vector<double> CostModel::linkBytes() const {
  std::vector<double> total(state_->linkSecondsPerByte.size(), 0.0);
  for (const LinkLoads& phase : state_->loads) phase.addTo(total);
  return total;
}

Prediction predict(const std::vector<Schedule>& allRanks, const Network& net) {
  CostModel model(net);
  for (const Schedule& s : allRanks) model.add(s);
  return model.prediction();
}

}  // namespace trnccl::algo
