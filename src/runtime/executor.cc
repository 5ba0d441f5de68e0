#include "runtime/executor.h"

#include <algorithm>
#include <memory>
#include <deque>

#include "base/backoff.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/log.h"

namespace trnccl::runtime {
namespace {

using Clock = std::chrono::steady_clock;
using algo::Step;
using transport::Request;

// Runs one step, slice by slice. Slice j uses slot j % window; it may start
// only once slice j - window has retired (computed, and its send completed).
class StepRunner {
 public:
  StepRunner(const Step& step, size_t stepIndex, const algo::Schedule& schedule, const Call& call,
             const ExecutorContext& ctx)
      : step_(step), stepIndex_(stepIndex), schedule_(schedule), call_(call), ctx_(ctx) {
    elemBytes_ = typeSize(schedule.type);
    sliceElems_ = std::max<size_t>(1, ctx.staging->bufferBytes() / elemBytes_);
    // Both sides derive the slicing from the count alone, so they agree.
    if (step.count > sliceElems_ * kMaxSlicesPerStep)
      sliceElems_ = (step.count + kMaxSlicesPerStep - 1) / kMaxSlicesPerStep;
    slices_ = (step.count + sliceElems_ - 1) / sliceElems_;
    const bool recv = step.recvPeer >= 0, send = step.sendPeer >= 0;
    const bool needsRecvSlot = recv && (step.reduce || step.dst.buffer == algo::kNone);
    const bool needsSendSlot = send && step.reduce && step.dst.buffer == algo::kNone;
    const size_t window = std::min<size_t>(ctx.window, std::max<size_t>(slices_, 1));
    if (sliceElems_ * elemBytes_ > ctx.staging->bufferBytes() && (needsRecvSlot || needsSendSlot))
      throwError(trncclInternalError, "slice larger than the staging buffers");
    slots_.resize(window);
    for (Slot& s : slots_) {
      if (needsRecvSlot) s.recvBuffer = StagingBuffer(*ctx.staging);
      if (needsSendSlot) s.sendBuffer = StagingBuffer(*ctx.staging);
    }
  }

  bool done() const { return retired_ == slices_; }

  // Posts, computes and retires what it can; true if anything moved.
  bool advance() {
    bool progressed = false;
    const size_t window = slots_.size();
    if (step_.recvPeer >= 0) {
      while (posted_ < slices_ && posted_ < retired_ + window) {
        postReceive(posted_++);
        progressed = true;
      }
    }
    while (computed_ < slices_ && computed_ < retired_ + window) {
      Slot& slot = slots_[computed_ % window];
      if (step_.recvPeer >= 0 && !slot.recv.done) break;
      compute(computed_++, slot);
      progressed = true;
    }
    while (retired_ < computed_) {
      Slot& slot = slots_[retired_ % window];
      if (step_.sendPeer >= 0 && !slot.send.done) break;
      ++retired_;
      progressed = true;
    }
    return progressed;
  }

  // What the oldest unfinished slice waits for, for timeout messages.
  std::string waitingFor() const {
    const Slot& slot = slots_[retired_ % slots_.size()];
    std::string where = " (step " + std::to_string(stepIndex_) + ", slice " +
                        std::to_string(retired_ + 1) + " of " + std::to_string(slices_) + ")";
    if (step_.recvPeer >= 0 && retired_ == computed_ && !slot.recv.done)
      return "to receive from rank " + std::to_string(step_.recvPeer) + where;
    return "for rank " + std::to_string(step_.sendPeer) + " to receive" + where;
  }

 private:
  struct Slot {
    Request recv, send;
    StagingBuffer recvBuffer, sendBuffer;
  };

  char* at(const algo::Span& span, size_t slice) const {
    return static_cast<char*>(call_.buffers.at(span.buffer)) +
           (span.offset + slice * sliceElems_) * elemBytes_;
  }
  size_t sliceCount(size_t slice) const {
    return std::min(sliceElems_, step_.count - slice * sliceElems_);
  }
  uint64_t tag(uint32_t stepTag, size_t slice) const {
    return call_.tagBase | (uint64_t(stepTag & 0xffffff) << 16) | slice;
  }

  void postReceive(size_t slice) {
    Slot& slot = slots_[slice % slots_.size()];
    slot.recv = Request{};
    slot.recv.peer = step_.recvPeer;
    slot.recv.tag = tag(step_.recvTag, slice);
    slot.recv.buffer = slot.recvBuffer.data() ? slot.recvBuffer.data() : at(step_.dst, slice);
    slot.recv.bytes = sliceCount(slice) * elemBytes_;
    ctx_.transportOf.at(step_.recvPeer)->irecv(slot.recv);
  }

  void compute(size_t slice, Slot& slot) {
    const size_t n = sliceCount(slice);
    const size_t bytes = n * elemBytes_;
    const bool recv = step_.recvPeer >= 0;
    if (recv && slot.recv.transferred != bytes)
      throwError(trncclInvalidUsage, call_.label + ": rank " + std::to_string(step_.recvPeer) +
                                          " sent " + std::to_string(slot.recv.transferred) +
                                          " bytes where " + std::to_string(bytes) +
                                          " were expected (do all ranks pass the same count?)");
    void* value = nullptr;
    if (step_.reduce) {
      value = step_.dst.buffer != algo::kNone ? at(step_.dst, slice) : slot.sendBuffer.data();
      reduce(slice, n, recv ? slot.recv.buffer : nullptr, value);
    } else if (recv) {
      value = slot.recv.buffer;
      if (slot.recvBuffer.data() && step_.dst.buffer != algo::kNone)
        ctx_.device->dma().copy(at(step_.dst, slice), value, bytes);
    } else {
      value = at(step_.srcs.at(0), slice);
      if (step_.dst.buffer != algo::kNone)
        ctx_.device->dma().copy(at(step_.dst, slice), value, bytes);
    }
    if (step_.sendPeer >= 0) {
      slot.send = Request{};
      slot.send.peer = step_.sendPeer;
      slot.send.tag = tag(step_.sendTag, slice);
      slot.send.buffer = value;
      slot.send.bytes = bytes;
      ctx_.transportOf.at(step_.sendPeer)->isend(slot.send);
    }
  }

  // value = op(srcs..., received). The local source comes first so that an
  // in-place destination aliases the kernel's first source, as it allows.
  void reduce(size_t slice, size_t n, const void* received, void* out) {
    const void* inputs[64];
    const size_t k = step_.srcs.size() + (received ? 1 : 0);
    if (k > std::size(inputs))
      throwError(trncclInternalError, "a step reduces more than 64 sources");
    size_t i = 0;
    for (const algo::Span& src : step_.srcs) inputs[i++] = at(src, slice);
    if (received) inputs[i++] = received;
    kernels::ReduceArgs args;
    args.dst = out;
    args.srcs = inputs;
    args.nsrcs = static_cast<int>(k);
    args.count = n;
    args.type = schedule_.type;
    const bool average = schedule_.op == trncclAvg;
    args.op = average && !step_.final ? trncclSum : schedule_.op;
    args.avgDivisor = average ? static_cast<uint64_t>(schedule_.nranks) : 1;
    args.rounding.kind = ctx_.rounding;
    args.rounding.seed = ctx_.seed;
    // Each reduction of the same elements (one per ring hop) draws fresh bits.
    args.rounding.call = call_.tagBase | stepIndex_;
    const algo::Span& first = step_.srcs.empty() ? step_.dst : step_.srcs[0];
    args.rounding.firstIndex = first.offset + slice * sliceElems_;
    ctx_.device->vector().reduce(args);
  }

  const Step& step_;
  size_t stepIndex_;
  const algo::Schedule& schedule_;
  const Call& call_;
  const ExecutorContext& ctx_;
  size_t elemBytes_ = 1, sliceElems_ = 1, slices_ = 0;
  size_t posted_ = 0, computed_ = 0, retired_ = 0;
  std::vector<Slot> slots_;
};

// A channel starts its steps in order and keeps two in flight: the next step
// posts its receives while the current one still waits for its peer to take
// its sends, which is what the peer's own next step does. (Strictly
// sequential steps deadlock a ring whose sends complete only when received.)
class ChannelRunner {
 public:
  static constexpr size_t kStepsInFlight = 2;

  ChannelRunner(const algo::Channel& channel, size_t firstStepIndex, const algo::Schedule& schedule,
                const Call& call, const ExecutorContext& ctx)
      : channel_(channel), firstStepIndex_(firstStepIndex), schedule_(schedule), call_(call), ctx_(ctx) {}

  bool done() const { return next_ == channel_.steps.size() && active_.empty(); }

  bool advance() {
    bool progressed = false;
    for (;;) {
      while (active_.size() < kStepsInFlight && next_ < channel_.steps.size()) {
        active_.push_back(std::make_unique<StepRunner>(channel_.steps[next_], firstStepIndex_ + next_,
                                                       schedule_, call_, ctx_));
        ++next_;
        progressed = true;
      }
      bool retired = false;
      for (auto it = active_.begin(); it != active_.end();) {
        progressed |= (*it)->advance();
        if ((*it)->done()) {
          it = active_.erase(it);
          retired = true;
        } else {
          ++it;
        }
      }
      if (!retired) return progressed;
    }
  }

  std::string waitingFor() const { return active_.empty() ? "nothing" : active_.front()->waitingFor(); }

 private:
  const algo::Channel& channel_;
  size_t firstStepIndex_;
  const algo::Schedule& schedule_;
  const Call& call_;
  const ExecutorContext& ctx_;
  size_t next_ = 0;
  std::deque<std::unique_ptr<StepRunner>> active_;
};

void runPhase(const algo::Phase& phase, size_t& stepIndex, const algo::Schedule& schedule,
              const Call& call, const ExecutorContext& ctx) {
  std::vector<std::unique_ptr<ChannelRunner>> channels;
  for (const algo::Channel& c : phase.channels) {
    channels.push_back(std::make_unique<ChannelRunner>(c, stepIndex, schedule, call, ctx));
    stepIndex += c.steps.size();
  }
  Backoff backoff;
  auto lastProgress = Clock::now();
  for (;;) {
    for (transport::Transport* t : ctx.transports) t->progress();
    bool progressed = false, finished = true;
    for (auto& c : channels) {
      progressed |= c->advance();
      finished = finished && c->done();
    }
    if (finished) return;
    if (progressed) {
      backoff.reset();
      lastProgress = Clock::now();
      continue;
    }
    if (ctx.abortFlag && ctx.abortFlag->load(std::memory_order_relaxed))
      throwError(trncclInvalidUsage, call.label + ": the communicator was aborted");
    if (Clock::now() - lastProgress > ctx.timeout) {
      for (auto& c : channels) {
        if (c->done()) continue;
        throwError(trncclTimeout, call.label + " (" + schedule.algorithm + "): rank " +
                                      std::to_string(ctx.rank) + " waited " +
                                      std::to_string(ctx.timeout.count()) + " ms " +
                                      c->waitingFor());
      }
    }
    backoff.pause([&](std::chrono::microseconds maxWait) {
      if (ctx.transports.size() == 1) ctx.transports[0]->wait(maxWait);
      else sched_yield();
    });
  }
}

}  // namespace

void execute(const algo::Schedule& schedule, const Call& call, const ExecutorContext& ctx) {
  if (log::enabled(log::Level::Trace))
    TRNCCL_TRACE("%s: %s", call.label.c_str(), schedule.describe().c_str());
  try {
    size_t stepIndex = 0;
    for (const algo::Phase& phase : schedule.phases) runPhase(phase, stepIndex, schedule, call, ctx);
  } catch (...) {
    // The requests die with the runners: the transports must forget them first.
    for (transport::Transport* t : ctx.transports) t->cancelAll();
    throw;
  }
}

}  // namespace trnccl::runtime
