#include "runtime/executor.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <utility>

#include "base/datatype.h"
#include "base/error.h"
#include "base/log.h"
#include "runtime/idle_wait.h"

namespace trnccl::runtime {
namespace {

using algo::Step;
using transport::Request;

// A page-aligned slice-sized buffer, allocated on first use and kept.
class StagingBuffer {
 public:
  StagingBuffer() = default;
  StagingBuffer(StagingBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)) {}
  StagingBuffer& operator=(StagingBuffer&&) = delete;
  ~StagingBuffer() { std::free(data_); }
  void* get(size_t bytes) {
    if (data_ == nullptr) {
      bytes_ = (bytes + 4095) / 4096 * 4096;
      data_ = std::aligned_alloc(4096, bytes_);
      if (data_ == nullptr) throw std::bad_alloc();
    }
    return data_;
  }
  size_t bytes() const { return data_ == nullptr ? 0 : bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

struct Slot {
  Request recv, send;
  StagingBuffer recvStage, sendStage;
  uint64_t recvPosted = 0, sendPosted = 0;  // ticks, for TRNCCL_TRACE
};

}  // namespace

// Runs one step at a time, slice by slice. Slice j uses slot j % window; it may
// start only once slice j - window has retired (computed, and its send
// completed). Its slots and staging buffers persist from step to step.
class StepRunner {
 public:
  bool active() const { return step_ != nullptr; }
  bool done() const { return retired_ == slices_; }

  void start(const Step& step, size_t stepIndex, const algo::Schedule& schedule, const Call& call,
             const ExecutorContext& ctx, uint16_t channel, uint16_t lane) {
    step_ = &step;
    channel_ = channel;
    lane_ = lane;
    if (ctx.trace) began_ = readTicks();
    stepIndex_ = stepIndex;
    schedule_ = &schedule;
    call_ = &call;
    ctx_ = &ctx;
    elemBytes_ = typeSize(schedule.type);
    sliceElems_ = std::max<size_t>(1, ctx.sliceBytes / elemBytes_);
    // A PreMulSum scales its input on the way out of kSend: a send or copy
    // of it is a reduction of one scaled source.
    reduces_ = step.reduce || (call.preMulScalar != nullptr && step.recvPeer < 0 && !step.srcs.empty() &&
                               step.srcs[0].buffer == algo::kSend);
    // Both sides derive the slicing from the count alone, so they agree.
    const bool staged = (step.recvPeer >= 0 && (reduces_ || step.dst.buffer == algo::kNone)) ||
                        (step.sendPeer >= 0 && reduces_ && step.dst.buffer == algo::kNone);
    if (step.count > sliceElems_ * kMaxSlicesPerStep) {
      if (staged) throwError(trncclInternalError, "a staged step is longer than 2^16 slices");
      sliceElems_ = (step.count + kMaxSlicesPerStep - 1) / kMaxSlicesPerStep;
    }
    slices_ = (step.count + sliceElems_ - 1) / sliceElems_;
    window_ = std::min<size_t>(ctx.window, std::max<size_t>(slices_, 1));
    if (slots_.size() < static_cast<size_t>(ctx.window)) slots_.resize(ctx.window);
    posted_ = computed_ = retired_ = 0;
  }

  void finish() { step_ = nullptr; }
  // A step that ran to its end: finish() and trace it.
  void retire() {
    if (ctx_->trace) {
      TraceEvent e = traceEvent(TraceKind::Step, began_);
      e.peer = step_->recvPeer;
      e.peer2 = step_->sendPeer;
      e.index = stepIndex_;
      e.amount = step_->count;
      ctx_->trace->add(e);
    }
    finish();
  }

  size_t stagingBytes() const {
    size_t total = 0;
    for (const Slot& slot : slots_) total += slot.recvStage.bytes() + slot.sendStage.bytes();
    return total;
  }

  // Posts, computes and retires what it can; true if anything moved.
  bool advance() {
    bool progressed = false;
    if (step_->recvPeer >= 0) {
      while (posted_ < slices_ && posted_ < retired_ + window_) {
        postReceive(posted_++);
        progressed = true;
      }
    }
    while (computed_ < slices_ && computed_ < retired_ + window_) {
      Slot& slot = slots_[computed_ % window_];
      if (step_->recvPeer >= 0 && !slot.recv.done) break;
      if (step_->recvPeer >= 0 && ctx_->trace) traceTransfer(TraceKind::Recv, computed_, slot.recvPosted, slot.recv);
      compute(computed_++, slot);
      progressed = true;
    }
    while (retired_ < computed_) {
      Slot& slot = slots_[retired_ % window_];
      if (step_->sendPeer >= 0 && !slot.send.done) break;
      if (step_->sendPeer >= 0 && ctx_->trace) traceTransfer(TraceKind::Send, retired_, slot.sendPosted, slot.send);
      ++retired_;
      progressed = true;
    }
    return progressed;
  }

  WaitTarget waitTarget() const {
    const Slot& slot = slots_[retired_ % window_];
    WaitTarget t;
    t.step = stepIndex_;
    t.slice = retired_;
    t.slices = slices_;
    t.receiving = step_->recvPeer >= 0 && retired_ == computed_ && !slot.recv.done;
    t.peer = t.receiving ? step_->recvPeer : step_->sendPeer;
    return t;
  }

 private:
  TraceEvent traceEvent(TraceKind kind, uint64_t began) const {
    TraceEvent e;
    e.kind = kind;
    e.channel = channel_;
    e.lane = lane_;
    e.begin = began;
    e.end = readTicks();
    return e;
  }
  void traceTransfer(TraceKind kind, size_t slice, uint64_t posted, const Request& request) const {
    TraceEvent e = traceEvent(kind, posted);
    e.slot = static_cast<uint16_t>(slice % window_);
    e.peer = request.peer;
    e.index = slice;
    e.amount = request.bytes;
    ctx_->trace->add(e);
  }

  char* at(const algo::Span& span, size_t slice) const {
    if (span.buffer >= call_->bufferCount) throwError(trncclInternalError, "a step names a missing buffer");
    return static_cast<char*>(call_->buffers[span.buffer]) + (span.offset + slice * sliceElems_) * elemBytes_;
  }
  size_t sliceCount(size_t slice) const { return std::min(sliceElems_, step_->count - slice * sliceElems_); }
  uint64_t tag(uint32_t stepTag, size_t slice) const { return messageTag(call_->tagBase, stepTag, slice); }
  size_t stageBytes() const { return sliceElems_ * elemBytes_; }

  void postReceive(size_t slice) {
    Slot& slot = slots_[slice % window_];
    const bool staged = reduces_ || step_->dst.buffer == algo::kNone;
    slot.recv = Request{};
    slot.recv.peer = step_->recvPeer;
    slot.recv.tag = tag(step_->recvTag, slice);
    slot.recv.buffer = staged ? slot.recvStage.get(stageBytes()) : at(step_->dst, slice);
    slot.recv.bytes = sliceCount(slice) * elemBytes_;
    if (ctx_->trace) slot.recvPosted = readTicks();
    ctx_->transportOf[step_->recvPeer]->irecv(slot.recv);
  }

  void compute(size_t slice, Slot& slot) {
    const size_t n = sliceCount(slice);
    const size_t bytes = n * elemBytes_;
    const bool recv = step_->recvPeer >= 0;
    const bool hasDst = step_->dst.buffer != algo::kNone;
    if (recv && slot.recv.transferred != bytes)
      throwError(trncclInvalidUsage, describeCall(*call_, ctx_->rank) + ": rank " + std::to_string(step_->recvPeer) +
                                         " sent " + std::to_string(slot.recv.transferred) + " bytes where " +
                                         std::to_string(bytes) + " were expected (do all ranks pass the same count?)");
    void* value = nullptr;
    bool userInput = false;
    if (reduces_) {
      value = hasDst ? at(step_->dst, slice) : slot.sendStage.get(stageBytes());
      reduce(slice, n, recv ? slot.recv.buffer : nullptr, value);
    } else if (recv) {
      value = slot.recv.buffer;
      if (hasDst && value != at(step_->dst, slice)) ctx_->device->dma().copy(at(step_->dst, slice), value, bytes);
    } else {
      value = at(step_->srcs.at(0), slice);
      userInput = step_->srcs[0].buffer == algo::kSend && call_->buffers[algo::kSend] != call_->buffers[algo::kRecv];
      if (hasDst) ctx_->device->dma().copy(at(step_->dst, slice), value, bytes);
    }
    if (step_->sendPeer >= 0) {
      slot.send = Request{};
      slot.send.peer = step_->sendPeer;
      slot.send.tag = tag(step_->sendTag, slice);
      slot.send.buffer = value;
      slot.send.bytes = bytes;
      slot.send.continues = slice > 0;  // the step's message is issued once
      slot.send.userInput = userInput;
      if (ctx_->trace) slot.sendPosted = readTicks();
      ctx_->transportOf[step_->sendPeer]->isend(slot.send);
    }
  }

  // value = op(srcs..., received). The local source comes first so that an
  // in-place destination aliases the kernel's first source, as it allows.
  void reduce(size_t slice, size_t n, const void* received, void* out) {
    const void* inputs[64];
    // A step that reduces only to scale its input has that one source.
    const size_t locals = step_->reduce ? step_->srcs.size() : 1;
    const size_t k = locals + (received ? 1 : 0);
    if (k > std::size(inputs)) throwError(trncclInternalError, "a step reduces more than 64 sources");
    size_t i = 0;
    uint64_t inputSources = 0;  // those read from kSend, for PreMulSum
    for (; i < locals; ++i) {
      if (step_->srcs[i].buffer == algo::kSend) inputSources |= uint64_t{1} << i;
      inputs[i] = at(step_->srcs[i], slice);
    }
    if (received) inputs[i++] = received;
    device::kernels::ReduceArgs args;
    args.dst = out;
    args.srcs = inputs;
    args.nsrcs = static_cast<int>(k);
    args.count = n;
    args.type = schedule_->type;
    const bool average = schedule_->op == trncclAvg;
    args.op = average && !step_->final ? trncclSum : schedule_->op;
    args.avgDivisor = average ? static_cast<uint64_t>(schedule_->nranks) : 1;
    args.preMultiply.scalar = call_->preMulScalar;
    args.preMultiply.sources = call_->preMulScalar != nullptr ? inputSources : 0;
    args.rounding.kind = ctx_->rounding;
    args.rounding.seed = ctx_->seed;
    // Each reduction of the same elements (one per ring hop) draws fresh bits.
    args.rounding.call = call_->tagBase | stepIndex_;
    const algo::Span& first = step_->srcs.empty() ? step_->dst : step_->srcs[0];
    args.rounding.firstIndex = first.offset + slice * sliceElems_;
    ctx_->device->vector().reduce(args);
  }

  const Step* step_ = nullptr;
  bool reduces_ = false;  // computes its value with the kernels
  size_t stepIndex_ = 0;
  const algo::Schedule* schedule_ = nullptr;
  const Call* call_ = nullptr;
  const ExecutorContext* ctx_ = nullptr;
  size_t elemBytes_ = 1, sliceElems_ = 1, slices_ = 0, window_ = 1;
  size_t posted_ = 0, computed_ = 0, retired_ = 0;
  std::vector<Slot> slots_;
  uint16_t channel_ = 0, lane_ = 0;
  uint64_t began_ = 0;  // ticks, for TRNCCL_TRACE
};

// A channel starts its steps in order and keeps two in flight (step i runs in
// lane i % 2): the next step posts its receives while the current one still
// waits for its peer to take its sends, which is what the peer's own next step
// does. (Strictly sequential steps deadlock a ring whose sends complete only
// when received.)
class ChannelRunner {
 public:
  void start(const algo::Channel& channel, size_t firstStepIndex, const algo::Schedule& schedule, const Call& call,
             const ExecutorContext& ctx, uint16_t index) {
    channel_ = &channel;
    index_ = index;
    firstStepIndex_ = firstStepIndex;
    schedule_ = &schedule;
    call_ = &call;
    ctx_ = &ctx;
    next_ = oldest_ = 0;
  }

  bool done() const { return oldest_ == channel_->steps.size(); }
  size_t stagingBytes() const { return lanes_[0].stagingBytes() + lanes_[1].stagingBytes(); }

  bool advance() {
    bool progressed = false;
    for (;;) {
      while (next_ < channel_->steps.size() && next_ < oldest_ + 2 && !lanes_[next_ % 2].active()) {
        lanes_[next_ % 2].start(channel_->steps[next_], firstStepIndex_ + next_, *schedule_, *call_, *ctx_, index_,
                                static_cast<uint16_t>(next_ % 2));
        ++next_;
        progressed = true;
      }
      for (size_t i = oldest_; i < next_; ++i) {
        StepRunner& lane = lanes_[i % 2];
        if (lane.active()) progressed |= lane.advance();
      }
      bool retired = false;
      while (oldest_ < next_ && (!lanes_[oldest_ % 2].active() || lanes_[oldest_ % 2].done())) {
        if (lanes_[oldest_ % 2].active()) lanes_[oldest_ % 2].retire();
        ++oldest_;
        retired = true;
      }
      if (!retired) return progressed;
    }
  }

  // What the oldest step in flight waits for; peer -1 if nothing.
  WaitTarget waitTarget() const { return oldest_ < next_ ? lanes_[oldest_ % 2].waitTarget() : WaitTarget{}; }

  // Drops the steps in flight after an error (their requests were cancelled).
  void reset() {
    for (StepRunner& lane : lanes_) lane.finish();
  }

 private:
  const algo::Channel* channel_ = nullptr;
  size_t firstStepIndex_ = 0;
  const algo::Schedule* schedule_ = nullptr;
  const Call* call_ = nullptr;
  const ExecutorContext* ctx_ = nullptr;
  size_t next_ = 0, oldest_ = 0;
  uint16_t index_ = 0;
  StepRunner lanes_[2];
};

Executor::Executor(const ExecutorContext& context) : ctx_(context) {}
Executor::~Executor() = default;

void Executor::runPhase(const algo::Phase& phase, size_t firstStep, const algo::Schedule& schedule, const Call& call) {
  const size_t nchannels = phase.channels.size();
  while (channels_.size() < nchannels) channels_.push_back(std::make_unique<ChannelRunner>());
  for (size_t c = 0; c < nchannels; ++c) {
    channels_[c]->start(phase.channels[c], firstStep, schedule, call, ctx_, static_cast<uint16_t>(c));
    firstStep += phase.channels[c].steps.size();
  }
  IdleWait wait(ctx_, call, schedule.algorithm);
  // The oldest unfinished step of the first unfinished channel.
  auto blockedOn = [&] {
    for (size_t c = 0; c < nchannels; ++c)
      if (!channels_[c]->done()) return channels_[c]->waitTarget();
    return WaitTarget{};
  };
  auto what = [](const WaitTarget& t) {
    return (t.receiving ? "to receive from rank " + std::to_string(t.peer)
                        : "for rank " + std::to_string(t.peer) + " to receive") +
           " (step " + std::to_string(t.step) + ", slice " + std::to_string(t.slice + 1) + " of " +
           std::to_string(t.slices) + ")";
  };
  // The first round posts before it polls: progress() reads lines the peers
  // write, which costs cache misses before this rank's own sends go out.
  for (bool first = true;; first = false) {
    if (!first)
      for (transport::Transport* t : ctx_.transports) t->progress();
    bool progressed = false, finished = true;
    for (size_t c = 0; c < nchannels; ++c) {
      progressed |= channels_[c]->advance();
      finished = finished && channels_[c]->done();
    }
    if (progressed) wait.progressed();
    if (finished) return;
    if (!progressed) wait.idle(blockedOn, what);
  }
}

void Executor::releaseBuffers() { channels_.clear(); }

size_t Executor::stagingBytes() const {
  size_t total = 0;
  for (const auto& channel : channels_) total += channel->stagingBytes();
  return total;
}

void Executor::cancel() {
  // The steps in flight own requests the transports still point to.
  for (transport::Transport* t : ctx_.transports) t->cancelAll();
  for (auto& c : channels_) c->reset();
}

std::string Executor::departuresText(const std::string& message) const {
  std::string text;
  for (transport::Transport* t : ctx_.transports)
    for (const std::string& gone : t->departures())
      if (message.find(gone) == std::string::npos) text += (text.empty() ? "" : "; ") + gone;
  return text.empty() ? "" : " [gone from the communicator: " + text + "]";
}

void Executor::run(const algo::Schedule& schedule, const Call& call) {
  if (log::enabled(log::Level::Trace))
    TRNCCL_TRACE("%s: %s", describeCall(call, ctx_.rank).c_str(), schedule.describe().c_str());
  try {
    size_t firstStep = 0;
    for (const algo::Phase& phase : schedule.phases) {
      runPhase(phase, firstStep, schedule, call);
      for (const algo::Channel& c : phase.channels) firstStep += c.steps.size();
    }
  } catch (const Error& e) {
    cancel();
    if (e.code() != trncclRemoteError && e.code() != trncclTimeout) throw;
    throw Error(e.code(), e.what() + departuresText(e.what()));
  } catch (...) {
    cancel();
    throw;
  }
}

}  // namespace trnccl::runtime
