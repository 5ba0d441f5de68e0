#include "algorithms/deterministic.h"

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <string>

#include "algorithms/ring.h"

namespace trnccl::algo {
namespace {

// A rank's contribution to one owner's block: elements of its send buffer.
struct Contribution {
  size_t offset = 0;
  size_t count = 0;
};

// Where rank r's data sits in the whole call: contributionFor(p) is what
// every rank sends owner p (the same count on every rank).
template <class ContributionFor>
void reduceAtOwners(const CollectiveArgs& args, ContributionFor contributionFor, Span dst, size_t slotBase,
                    bool stageOwn, Schedule& s) {
  const int n = args.nranks, r = args.rank;
  const Contribution mine = contributionFor(r);
  Phase exchange;
  for (int d = 1; d < n; ++d) {
    const int to = mod(r + d, n), from = mod(r - d, n);
    const Contribution out = contributionFor(to);
    if (out.count > 0) {
      Step send;
      send.sendPeer = to;
      send.sendTag = static_cast<uint32_t>(d);
      send.srcs = {Span{kSend, out.offset}};
      send.count = out.count;
      exchange.channels.push_back(Channel{{send}});
    }
    if (mine.count > 0) {
      Step recv;
      recv.recvPeer = from;
      recv.recvTag = static_cast<uint32_t>(d);
      recv.dst = Span{kScratch, slotBase + mine.count * from};
      recv.count = mine.count;
      exchange.channels.push_back(Channel{{recv}});
    }
  }
  s.scratchElements = std::max(s.scratchElements, slotBase + mine.count * n);
  if (mine.count == 0) {
    if (!exchange.channels.empty()) s.phases.push_back(std::move(exchange));
    return;
  }
  // In place the result overwrites this rank's own contribution, which the
  // kernel may alias only as its first source: stage it in its slot.
  Span own{kSend, mine.offset};
  if (stageOwn) {
    const Span staged{kScratch, slotBase + mine.count * r};
    exchange.channels.push_back(Channel{{localCopy(own, staged, mine.count)}});
    own = staged;
  }
  s.phases.push_back(std::move(exchange));
  Step reduce;
  reduce.reduce = true;
  reduce.final = true;
  for (int q = 0; q < n; ++q) reduce.srcs.push_back(q == r ? own : Span{kScratch, slotBase + mine.count * q});
  reduce.dst = dst;
  reduce.count = mine.count;
  s.phases.push_back(Phase{{Channel{{reduce}}}});
}

// `from`'s phases appended to `to`, its buffers moved: its send buffer to
// `send`, its receive buffer to `recv`, its scratch from `scratchBase` of
// the scratch buffer; its tags above `tagBase`.
void append(const Schedule& from, Span send, Span recv, size_t scratchBase, uint32_t tagBase, Schedule& to) {
  auto moved = [&](Span at) {
    switch (at.buffer) {
      case kSend:
        return Span{send.buffer, send.offset + at.offset};
      case kRecv:
        return Span{recv.buffer, recv.offset + at.offset};
      case kScratch:
        return Span{kScratch, scratchBase + at.offset};
      default:
        return at;
    }
  };
  for (const Phase& phase : from.phases) {
    Phase out;
    for (const Channel& channel : phase.channels) {
      Channel kept;
      for (Step step : channel.steps) {
        for (Span& src : step.srcs) src = moved(src);
        step.dst = moved(step.dst);
        if (step.recvPeer >= 0) step.recvTag += tagBase;
        if (step.sendPeer >= 0) step.sendTag += tagBase;
        // An in-place all-gather's copy of this rank's own block, which now
        // reads and writes the same place: no copy (a send of it stays).
        const bool selfCopy = step.recvPeer < 0 && !step.reduce && step.srcs.size() == 1 && step.srcs[0] == step.dst;
        if (selfCopy && step.sendPeer < 0) continue;
        if (selfCopy) step.dst = Span{};
        kept.steps.push_back(std::move(step));
      }
      if (!kept.steps.empty()) out.channels.push_back(std::move(kept));
    }
    if (!out.channels.empty()) to.phases.push_back(std::move(out));
  }
  to.scratchElements = std::max(to.scratchElements, scratchBase + from.scratchElements);
}

// All-reduce: owner p reduces elements [p b, min((p + 1) b, count)) with
// b = ceil(count / n) into a scratch block, which `algorithm` all-gathers
// (out of place) into the receive buffer when n blocks fill it exactly,
// otherwise into scratch, copied out after.
void allReduce(const Algorithm& algorithm, const CollectiveArgs& args, Schedule& s) {
  const int n = args.nranks;
  const size_t count = args.count, b = (count + n - 1) / n;
  auto blockOf = [&](int p) {
    const size_t begin = std::min(count, b * p);
    return Contribution{begin, std::min(count, begin + b) - begin};
  };
  const bool padded = b * n != count;
  // Scratch: n slots of b (the contributions), this rank's reduced block,
  // then (padded) the n gathered blocks, then the all-gather's own scratch.
  const Span reduced{kScratch, b * n};
  const Span gathered = padded ? Span{kScratch, b * n + b} : Span{kRecv, 0};
  reduceAtOwners(args, blockOf, reduced, 0, false, s);

  CollectiveArgs gather = args;
  gather.collective = Collective::AllGather;
  gather.count = b;
  gather.op = trncclSum;
  gather.inPlace = false;
  gather.v = nullptr;
  const Ring ring;
  const Algorithm& mover = algorithm.whyUnsupported(gather).empty() ? algorithm : static_cast<const Algorithm&>(ring);
  const size_t after = b * n + b + (padded ? b * n : 0);
  append(mover.build(gather), reduced, gathered, after, static_cast<uint32_t>(n), s);
  if (padded) s.phases.push_back(Phase{{Channel{{localCopy(gathered, Span{kRecv, 0}, count)}}}});
}

}  // namespace

const char* deterministicName(const char* algorithm) {
  static std::mutex mutex;
  static std::map<std::string, const char*> names;
  static std::deque<std::string> storage;  // stable addresses
  std::lock_guard<std::mutex> lock(mutex);
  auto it = names.find(algorithm);
  if (it == names.end())
    it = names.emplace(algorithm, storage.emplace_back(std::string(algorithm) + "/deterministic").c_str()).first;
  return it->second;
}

Schedule deterministicSchedule(const Algorithm& algorithm, const CollectiveArgs& args) {
  if (args.nranks == 1 || !reduces(args.collective)) return algorithm.build(args);
  Schedule s = singleChannelSchedule(args, deterministicName(algorithm.name()));
  s.phases.clear();
  const size_t count = args.count;
  switch (args.collective) {
    case Collective::AllReduce:
      allReduce(algorithm, args, s);
      break;
    case Collective::ReduceScatter: {
      const auto block = [&](int p) { return Contribution{count * p, count}; };
      reduceAtOwners(args, block, Span{kRecv, 0}, 0, args.inPlace, s);
      break;
    }
    case Collective::ReduceScatterV: {
      const auto block = [&](int p) { return Contribution{args.v->sendDispls[p], args.v->sendCounts[p]}; };
      reduceAtOwners(args, block, Span{kRecv, 0}, 0, args.inPlace, s);
      break;
    }
    case Collective::Reduce: {  // the root owns everything
      const auto whole = [&](int p) { return Contribution{0, p == args.root ? count : 0}; };
      reduceAtOwners(args, whole, Span{kRecv, 0}, 0, args.inPlace, s);
      break;
    }
    default:
      return algorithm.build(args);
  }
  return s;
}

}  // namespace trnccl::algo
