#include "sim/event_engine.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <queue>
#include <unordered_map>

#include "base/error.h"

namespace trnccl::sim {
namespace {

// A message: from, to and tag packed into one key.
uint64_t messageKey(int from, int to, uint32_t tag) {
  return (static_cast<uint64_t>(from) << 44) | (static_cast<uint64_t>(to) << 24) | (tag & (algo::kTagSpace - 1));
}

struct Message {
  double sent = 0;      // when its sender sent it
  double arrival = -1;  // -1: not yet arrived
  int waitingRank = -1, waitingChannel = -1;
};

struct Flow {
  const algo::Path* path = nullptr;
  uint64_t message = 0;
  uint64_t pair = 0;           // sender and receiver
  size_t phase = 0, step = 0;  // of the sender's step that sent it
  double remaining = 0, rate = 0, since = 0;
  uint32_t version = 0;
};

// A rank's messages to one peer leave in order, one at a time, as a
// transport's per-peer queue sends them.
struct PairQueue {
  int active = -1;  // Fair: the flow on the wire
  std::deque<int> waiting;
  double busyUntil = 0;  // Static
};

struct Link {
  double bytesPerSec = 0;
  double issueFree = 0;    // when it may issue its next message
  std::vector<int> flows;  // Fair: the transfers on it now
};

enum class EventKind : uint8_t { Start, Proceed, Send, Issued, FlowDone };

struct Event {
  double time;
  EventKind kind;
  int a, b;  // Start: rank; Proceed/Send: rank, channel; Issued: flow; FlowDone: flow, version
  bool operator>(const Event& o) const { return time > o.time; }
};

struct ChannelState {
  size_t step = 0;
  bool done = false;
  CompactStep current;  // step `step`, read once from the schedules
};

struct RankState {
  size_t phase = 0;
  int channelsLeft = 0;
  std::vector<ChannelState> channels;
  double reduceSeconds = 0;
};

class EventSimulation {
 public:
  EventSimulation(const CompactSchedules& all, const algo::Network& net, const std::vector<double>& entry,
                  Sharing sharing, const StaticRate* rate)
      : all_(all), net_(net), entry_(entry), sharing_(sharing), staticRate_(rate) {
    for (int l = 0; l < net.linkCount(); ++l) links_.push_back({net.linkBytesPerSec(l), 0, {}});
    prediction_.linkBytes.assign(links_.size(), 0);
    prediction_.linkIssueSeconds.assign(links_.size(), 0);
    ranks_.resize(static_cast<size_t>(all.ranks()));
    entry_.resize(ranks_.size(), 0);
  }

  Prediction run() {
    // Ranks on time start before any event; late ones when they enter.
    for (size_t r = 0; r < ranks_.size(); ++r) {
      if (entry_[r] > 0)
        push({entry_[r], EventKind::Start, static_cast<int>(r), 0});
      else
        startPhase(static_cast<int>(r), 0);
    }
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      now_ = e.time;
      if (e.kind == EventKind::Start)
        startPhase(e.a, 0);
      else if (e.kind == EventKind::Proceed)
        proceed(e.a, e.b);
      else if (e.kind == EventKind::Send)
        send(e.a, e.b);
      else if (e.kind == EventKind::Issued)
        queueFlow(e.a);
      else if (flows_[e.a].version == static_cast<uint32_t>(e.b))
        finishFlow(e.a);
    }
    checkAllFinished();
    prediction_.seconds =
        finished_ > 0 ? finished_ + net_.launchSec() : 0;  // a call that moves nothing is not launched
    prediction_.bound = bound();
    prediction_.engine = sharing_ == Sharing::Fair ? Engine::EventDriven : Engine::Analytical;
    return std::move(prediction_);
  }

 private:
  const CompactStep& stepOf(int rank, int channel) const {
    const RankState& rs = ranks_[rank];
    return rs.channels[channel].current;
  }

  void startPhase(int rank, size_t phase) {
    RankState& rs = ranks_[rank];
    rs.phase = phase;
    if (phase == all_.phases(rank)) {
      finished_ = std::max(finished_, now_);
      return;
    }
    const size_t channels = all_.channels(rank, phase);
    if (channels == 0) return startPhase(rank, phase + 1);  // a phase this rank sits out
    rs.channels.assign(channels, {});
    rs.channelsLeft = static_cast<int>(channels);
    for (size_t c = 0; c < channels; ++c) startStep(rank, static_cast<int>(c));
  }

  // The channel's current step, or the channel's end.
  void startStep(int rank, int channel) {
    RankState& rs = ranks_[rank];
    ChannelState& cs = rs.channels[channel];
    if (cs.step == all_.channelLength(rank, rs.phase, static_cast<size_t>(channel))) {
      cs.done = true;
      if (--rs.channelsLeft == 0) startPhase(rank, rs.phase + 1);
      return;
    }
    cs.current = all_.step(rank, rs.phase, static_cast<size_t>(channel), cs.step);
    const CompactStep& step = stepOf(rank, channel);
    if (step.recvPeer < 0) return proceed(rank, channel);
    Message& m = messages_[messageKey(step.recvPeer, rank, step.recvTag)];
    if (m.arrival >= 0) {
      push({std::max(now_, m.arrival), EventKind::Proceed, rank, channel});
    } else {
      m.waitingRank = rank, m.waitingChannel = channel;
    }
  }

  // The step's input is here: reduce, then send (or move on).
  void proceed(int rank, int channel) {
    const CompactStep& step = stepOf(rank, channel);
    double transfer = 0;  // the received message's, from its send to its arrival
    if (step.recvPeer >= 0) {
      const auto m = messages_.find(messageKey(step.recvPeer, rank, step.recvTag));
      transfer = m->second.arrival - m->second.sent;
      messages_.erase(m);
    }
    double reduce = 0;
    if (step.reduce) {
      const size_t inputs = step.inputs;
      const double bytes = static_cast<double>(step.bytes);
      reduce = algo::exposedReduceSeconds(
          static_cast<double>(std::max<size_t>(1, inputs - 1)) * bytes / net_.reduceBytesPerSec(), transfer,
          net_.reduceSlices());
      ranks_[rank].reduceSeconds += reduce;
    }
    if (reduce > 0 || step.sendPeer >= 0) {
      push({now_ + reduce, EventKind::Send, rank, channel});
    } else {
      advance(rank, channel);
    }
  }

  void send(int rank, int channel) {
    const CompactStep& step = stepOf(rank, channel);
    if (step.sendPeer >= 0) startFlow(rank, channel, step);
    advance(rank, channel);
  }

  void advance(int rank, int channel) {
    ++ranks_[rank].channels[channel].step;
    startStep(rank, channel);
  }

  const algo::Path& pathOf(int from, int to) {
    auto [it, fresh] = paths_.try_emplace((static_cast<uint64_t>(from) << 32) | static_cast<uint32_t>(to));
    if (fresh) it->second = net_.path(from, to);
    return it->second;
  }

  void startFlow(int rank, int channel, const CompactStep& step) {
    ++prediction_.transfers;
    const uint64_t key = messageKey(rank, step.sendPeer, step.sendTag);
    messages_[key].sent = now_;
    const algo::Path& path = pathOf(rank, step.sendPeer);
    const double bytes = static_cast<double>(step.bytes);
    if (bytes == 0 || path.links.empty()) return arrive(key, issue(path) + path.latencySec);
    int id;
    if (freeFlows_.empty()) {
      id = static_cast<int>(flows_.size());
      flows_.emplace_back();
    } else {
      id = freeFlows_.back();
      freeFlows_.pop_back();
    }
    Flow& f = flows_[id];
    f.path = &path, f.message = key, f.remaining = bytes, f.rate = 0, f.since = now_;
    f.pair = (static_cast<uint64_t>(rank) << 32) | static_cast<uint32_t>(step.sendPeer);
    f.phase = ranks_[rank].phase, f.step = ranks_[rank].channels[channel].step;
    for (int l : path.links) prediction_.linkBytes[l] += bytes;
    if (path.issueLink < 0) return queueFlow(id);
    push({issue(path), EventKind::Issued, id, 0});
  }

  // When a message over `path` is issued: its issue link (the sender's DMA
  // engines) issues one message after another, while the bytes of those
  // issued before move.
  double issue(const algo::Path& path) {
    if (path.issueLink < 0) return now_;
    Link& issuer = links_[path.issueLink];
    issuer.issueFree = std::max(now_, issuer.issueFree) + path.issueSec;
    prediction_.linkIssueSeconds[path.issueLink] += path.issueSec;
    return issuer.issueFree;
  }

  // An issued message: on the wire, or behind its pair's earlier ones.
  void queueFlow(int id) {
    Flow& f = flows_[id];
    const algo::Path& path = *f.path;
    const double bytes = f.remaining;
    const int rank = static_cast<int>(f.pair >> 32);
    PairQueue& queue = pairs_[f.pair];
    if (sharing_ == Sharing::Static) {
      double rate = std::numeric_limits<double>::infinity();
      for (int l : path.links) rate = std::min(rate, links_[l].bytesPerSec);
      if (staticRate_ != nullptr) rate = (*staticRate_)(rank, f.phase, f.step, path);
      queue.busyUntil = std::max(now_, queue.busyUntil) + bytes / rate;
      push({queue.busyUntil, EventKind::FlowDone, id, static_cast<int>(++f.version)});
      return;
    }
    if (queue.active >= 0) return queue.waiting.push_back(id);
    putOnWire(id, queue);
  }

  void putOnWire(int id, PairQueue& queue) {
    queue.active = id;
    flows_[id].since = now_;
    for (int l : flows_[id].path->links) links_[l].flows.push_back(id);
    reshare(flows_[id].path->links);
  }

  void finishFlow(int id) {
    Flow& f = flows_[id];
    ++f.version;  // no event of it is current any more
    freeFlows_.push_back(id);
    arrive(f.message, now_ + f.path->latencySec);
    if (sharing_ == Sharing::Static) return;
    for (int l : f.path->links) {
      auto& on = links_[l].flows;
      on.erase(std::find(on.begin(), on.end(), id));
    }
    reshare(f.path->links);
    PairQueue& queue = pairs_[f.pair];
    queue.active = -1;
    if (queue.waiting.empty()) return;
    const int next = queue.waiting.front();
    queue.waiting.pop_front();
    putOnWire(next, queue);
  }

  // Transfers on `changed` links get new shares (and new finish times).
  void reshare(const std::vector<int>& changed) {
    for (int l : changed)
      for (int id : links_[l].flows) {
        Flow& f = flows_[id];
        double rate = std::numeric_limits<double>::infinity();
        for (int m : f.path->links)
          rate = std::min(rate, links_[m].bytesPerSec / static_cast<double>(links_[m].flows.size()));
        if (rate == f.rate) continue;
        f.remaining = std::max(0.0, f.remaining - f.rate * (now_ - f.since));
        f.since = now_;
        f.rate = rate;
        push({now_ + f.remaining / rate, EventKind::FlowDone, id, static_cast<int>(++f.version)});
      }
  }

  void arrive(uint64_t key, double when) {
    Message& m = messages_[key];
    m.arrival = when;
    if (m.waitingRank >= 0) push({when, EventKind::Proceed, m.waitingRank, m.waitingChannel});
  }

  void push(const Event& e) { events_.push(e); }

  void checkAllFinished() const {
    for (size_t r = 0; r < ranks_.size(); ++r) {
      const RankState& rs = ranks_[r];
      if (rs.phase == all_.phases(static_cast<int>(r))) continue;
      for (size_t c = 0; c < rs.channels.size(); ++c)
        if (!rs.channels[c].done)
          throwError(trncclInternalError, "simulation: rank " + std::to_string(r) + " never finished phase " +
                                              std::to_string(rs.phase) + " channel " + std::to_string(c) + " step " +
                                              std::to_string(rs.channels[c].step) + " (a receive nobody sends)");
    }
  }

  // The largest of the busiest link's busy time, a rank's reductions and the
  // latest entry, when it is at least half the time (ties in that order).
  std::string bound() const {
    if (finished_ <= 0) return "";
    double busiest = 0, reduce = 0;
    int link = -1;
    for (size_t l = 0; l < links_.size(); ++l) {
      const double busy =
          algo::linkBusySeconds(prediction_.linkBytes[l], links_[l].bytesPerSec, prediction_.linkIssueSeconds[l]);
      if (busy > busiest) busiest = busy, link = static_cast<int>(l);
    }
    for (const RankState& rs : ranks_) reduce = std::max(reduce, rs.reduceSeconds);
    const auto latest = std::max_element(entry_.begin(), entry_.end());
    const double late = latest == entry_.end() ? 0 : *latest;
    const double launch = net_.launchSec();
    const double most = std::max({busiest, reduce, late, launch});
    if (most < 0.5 * (finished_ + launch)) return "latency";
    if (launch == most) return "launch";
    if (link >= 0 && busiest == most) return "link " + net_.linkName(link);
    if (reduce == most) return "vector engine";
    return "straggler rank " + std::to_string(latest - entry_.begin());
  }

  const CompactSchedules& all_;
  const algo::Network& net_;
  std::vector<double> entry_;  // when each rank enters
  Sharing sharing_;
  const StaticRate* staticRate_;
  std::vector<Link> links_;
  std::vector<RankState> ranks_;
  std::vector<Flow> flows_;
  std::vector<int> freeFlows_;
  std::unordered_map<uint64_t, Message> messages_;
  std::unordered_map<uint64_t, algo::Path> paths_;
  std::unordered_map<uint64_t, PairQueue> pairs_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  double now_ = 0, finished_ = 0;
  Prediction prediction_;
};

}  // namespace

Prediction runEvents(const CompactSchedules& allRanks, const algo::Network& net, const std::vector<double>& entrySec,
                     Sharing sharing, const StaticRate* staticRate) {
  return EventSimulation(allRanks, net, entrySec, sharing, staticRate).run();
}

Prediction runEvents(const std::vector<algo::Schedule>& allRanks, const algo::Network& net,
                     const std::vector<double>& entrySec, Sharing sharing, const StaticRate* staticRate) {
  return runEvents(compact(allRanks), net, entrySec, sharing, staticRate);
}

}  // namespace trnccl::sim
