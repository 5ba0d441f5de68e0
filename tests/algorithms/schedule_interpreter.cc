#include "schedule_interpreter.h"

#include <algorithm>
#include <cmath>

namespace trnccl::test {
namespace {

using Key = std::tuple<int, int, uint32_t>;  // sender, receiver, tag

double combine(trncclRedOp_t op, double a, double b) {
  switch (op) {
    case trncclProd:
      return a * b;
    case trncclMax:
      return std::max(a, b);
    case trncclMin:
      return std::min(a, b);
    default:
      return a + b;  // sum, and avg before its final divide
  }
}

struct Rank {
  const algo::Schedule* schedule;
  RankBuffers* buffers;
  std::vector<double> scratch;
  size_t phase = 0;
  std::vector<size_t> position;  // next step per channel of the current phase

  double* at(const algo::Span& span) {
    switch (span.buffer) {
      case algo::kSend:
        return buffers->memory.data() + buffers->sendAt + span.offset;
      case algo::kRecv:
        return buffers->memory.data() + buffers->recvAt + span.offset;
      case algo::kScratch:
        return scratch.data() + span.offset;
      default:
        return nullptr;
    }
  }
  bool inRange(const algo::Span& span, size_t count) {
    const size_t size = span.buffer == algo::kRecv      ? buffers->recvSize
                        : span.buffer == algo::kScratch ? scratch.size()
                        : span.buffer == algo::kSend    ? buffers->sendSize
                                                        : 0;
    return span.offset + count <= size;
  }
};

// The executor overlaps a step with the next one in its channel: neither may
// write what the other reads or writes.
std::string adjacentStepHazard(Rank& rank) {
  auto overlap = [&](const algo::Span& a, const algo::Span& b, size_t n, size_t m) {
    if (a.buffer == algo::kNone || b.buffer == algo::kNone || n == 0 || m == 0) return false;
    const double *pa = rank.at(a), *pb = rank.at(b);
    return pa < pb + m && pb < pa + n;
  };
  for (const auto& phase : rank.schedule->phases) {
    for (const auto& channel : phase.channels) {
      for (size_t i = 0; i + 1 < channel.steps.size(); ++i) {
        const algo::Step &x = channel.steps[i], &y = channel.steps[i + 1];
        bool hazard = overlap(x.dst, y.dst, x.count, y.count);
        for (const auto& src : y.srcs) hazard |= overlap(x.dst, src, x.count, y.count);
        for (const auto& src : x.srcs) hazard |= overlap(y.dst, src, y.count, x.count);
        if (hazard) return "steps " + std::to_string(i) + " and " + std::to_string(i + 1) + " touch the same data";
      }
    }
  }
  return {};
}

}  // namespace

InterpreterResult interpret(const std::vector<algo::Schedule>& schedules, std::vector<RankBuffers>& buffers) {
  const int n = static_cast<int>(schedules.size());
  std::vector<Rank> ranks(n);
  for (int r = 0; r < n; ++r) {
    ranks[r].schedule = &schedules[r];
    ranks[r].buffers = &buffers[r];
    ranks[r].scratch.assign(schedules[r].scratchElements, std::nan(""));
    buffers[r].recvWrites.assign(buffers[r].recvSize, 0);
  }
  for (int r = 0; r < n; ++r) {
    std::string hazard = adjacentStepHazard(ranks[r]);
    if (!hazard.empty()) return InterpreterResult{false, "rank " + std::to_string(r) + ": " + hazard};
  }
  std::map<Key, std::vector<double>> inFlight;
  auto fail = [](std::string why) { return InterpreterResult{false, std::move(why)}; };

  for (;;) {
    bool progressed = false, allDone = true;
    for (int r = 0; r < n; ++r) {
      Rank& rank = ranks[r];
      const auto& phases = rank.schedule->phases;
      while (rank.phase < phases.size()) {
        const auto& channels = phases[rank.phase].channels;
        rank.position.resize(channels.size(), 0);
        bool phaseDone = true;
        for (size_t c = 0; c < channels.size(); ++c) {
          while (rank.position[c] < channels[c].steps.size()) {
            const algo::Step& step = channels[c].steps[rank.position[c]];
            const std::string where = "rank " + std::to_string(r) + " phase " + std::to_string(rank.phase) +
                                      " channel " + std::to_string(c) + " step " + std::to_string(rank.position[c]);
            std::vector<double> value(step.count);
            for (const algo::Span& src : step.srcs)
              if (!rank.inRange(src, step.count)) return fail(where + ": source out of range");
            if (step.srcs.empty() && (step.reduce || step.recvPeer < 0))
              return fail(where + ": a step with nothing to reduce or copy");
            if (step.recvPeer >= 0) {
              auto it = inFlight.find(Key{step.recvPeer, r, step.recvTag});
              if (it == inFlight.end()) break;  // blocked until the message arrives
              if (it->second.size() != step.count)
                return fail(where + ": received " + std::to_string(it->second.size()) + " elements, expected " +
                            std::to_string(step.count));
              std::vector<double> received = std::move(it->second);
              inFlight.erase(it);
              if (step.reduce) {
                // value = op(srcs..., received)
                for (size_t i = 0; i < step.count; ++i) {
                  double v = rank.at(step.srcs[0])[i];
                  for (size_t k = 1; k < step.srcs.size(); ++k)
                    v = combine(rank.schedule->op, v, rank.at(step.srcs[k])[i]);
                  value[i] = combine(rank.schedule->op, v, received[i]);
                }
              } else {
                value = std::move(received);
              }
            } else if (step.reduce) {
              for (size_t i = 0; i < step.count; ++i) {
                double v = rank.at(step.srcs[0])[i];
                for (size_t k = 1; k < step.srcs.size(); ++k)
                  v = combine(rank.schedule->op, v, rank.at(step.srcs[k])[i]);
                value[i] = v;
              }
            } else {
              std::copy_n(rank.at(step.srcs[0]), step.count, value.begin());
            }
            if (step.final && rank.schedule->op == trncclAvg)
              for (double& v : value) v /= rank.schedule->nranks;
            if (step.dst.buffer != algo::kNone) {
              if (!rank.inRange(step.dst, step.count)) return fail(where + ": destination out of range");
              std::copy(value.begin(), value.end(), rank.at(step.dst));
              if (step.dst.buffer == algo::kRecv)
                for (size_t i = 0; i < step.count; ++i) ++rank.buffers->recvWrites[step.dst.offset + i];
            }
            if (step.sendPeer >= 0) {
              if (step.sendPeer == r || step.sendPeer >= n)
                return fail(where + ": sends to rank " + std::to_string(step.sendPeer));
              if (!inFlight.emplace(Key{r, step.sendPeer, step.sendTag}, std::move(value)).second)
                return fail(where + ": a second message in flight with tag " + std::to_string(step.sendTag));
            }
            ++rank.position[c];
            progressed = true;
          }
          phaseDone = phaseDone && rank.position[c] == channels[c].steps.size();
        }
        if (!phaseDone) break;
        ++rank.phase;
        rank.position.clear();
      }
      allDone = allDone && rank.phase == phases.size();
    }
    if (allDone) {
      if (!inFlight.empty()) {
        auto [from, to, tag] = inFlight.begin()->first;
        return fail("message from rank " + std::to_string(from) + " to rank " + std::to_string(to) + " with tag " +
                    std::to_string(tag) + " was never received");
      }
      return {};
    }
    if (!progressed) return fail("deadlock: no rank can make progress");
  }
}

}  // namespace trnccl::test
