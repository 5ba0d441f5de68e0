#include "runtime/flight_recorder.h"

#include "base/error.h"

namespace trnccl::runtime {

const char* opStateName(OpState s) {
  switch (s) {
    case OpState::Issued:
      return "issued";
    case OpState::Running:
      return "running";
    case OpState::Waiting:
      return "waiting";
    case OpState::Done:
      return "done";
    case OpState::Failed:
      return "failed";
  }
  return "?";
}

// Every field is a relaxed atomic so that a concurrent reader is well defined;
// on x86 these are plain loads and stores.
struct FlightRecorder::Slot {
  std::atomic<uint64_t> version{0};  // odd while the writer changes the slot
  std::atomic<uint64_t> ordinal{0};
  std::atomic<uint64_t> sequence{0}, count{0};
  std::atomic<const char*> collective{""}, algorithm{""};
  std::atomic<int32_t> type{-1}, op{-1}, root{-1}, waitPeer{-1};
  std::atomic<int64_t> waitStep{-1};
  std::atomic<uint8_t> state{0}, waitReceiving{0};
  std::atomic<uint64_t> issued{0}, waitingSince{0}, ended{0};

  void open() {
    version.store(version.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
  }
  void close() { version.store(version.load(std::memory_order_relaxed) + 1, std::memory_order_release); }
};

FlightRecorder::FlightRecorder(size_t capacity) : capacity_(capacity), slots_(new Slot[capacity]) {
  if (capacity == 0) throwError(trncclInternalError, "a flight recorder needs at least one slot");
}

FlightRecorder::~FlightRecorder() = default;

void FlightRecorder::begin(const OpInfo& info, const char* algorithm) {
  const uint64_t ordinal = recorded_.load(std::memory_order_relaxed);
  Slot& s = slots_[ordinal % capacity_];
  s.open();
  constexpr auto r = std::memory_order_relaxed;
  s.ordinal.store(ordinal, r);
  s.sequence.store(info.sequence, r);
  s.collective.store(info.collective, r);
  s.count.store(info.count, r);
  s.type.store(info.type, r);
  s.op.store(info.op, r);
  s.root.store(info.root, r);
  s.algorithm.store(algorithm ? algorithm : "", r);
  s.waitPeer.store(-1, r);
  s.waitStep.store(-1, r);
  s.waitReceiving.store(0, r);
  s.state.store(static_cast<uint8_t>(algorithm ? OpState::Running : OpState::Issued), r);
  s.issued.store(readTicks(), r);
  s.waitingSince.store(0, r);
  s.ended.store(0, r);
  s.close();
  recorded_.store(ordinal + 1, std::memory_order_release);
  current_ = &s;
}

void FlightRecorder::running(const char* algorithm) {
  if (current_ == nullptr) return;
  // No clock read: the turn began just before, at issue.
  current_->open();
  current_->algorithm.store(algorithm, std::memory_order_relaxed);
  current_->state.store(static_cast<uint8_t>(OpState::Running), std::memory_order_relaxed);
  current_->close();
}

void FlightRecorder::waiting(int peer, int64_t step, bool receiving) {
  if (current_ == nullptr) return;
  current_->open();
  current_->waitPeer.store(peer, std::memory_order_relaxed);
  current_->waitStep.store(step, std::memory_order_relaxed);
  current_->waitReceiving.store(receiving ? 1 : 0, std::memory_order_relaxed);
  current_->state.store(static_cast<uint8_t>(OpState::Waiting), std::memory_order_relaxed);
  current_->waitingSince.store(readTicks(), std::memory_order_relaxed);
  current_->close();
}

void FlightRecorder::resumed() {
  if (current_ == nullptr) return;
  // The wait is over: a later failure must not be blamed on it.
  current_->open();
  current_->waitPeer.store(-1, std::memory_order_relaxed);
  current_->waitStep.store(-1, std::memory_order_relaxed);
  current_->state.store(static_cast<uint8_t>(OpState::Running), std::memory_order_relaxed);
  current_->close();
}

void FlightRecorder::finish(bool ok) {
  if (current_ == nullptr) return;
  // A failed operation keeps the peer and step it waited on: that is the clue.
  current_->open();
  current_->state.store(static_cast<uint8_t>(ok ? OpState::Done : OpState::Failed), std::memory_order_relaxed);
  current_->ended.store(readTicks(), std::memory_order_relaxed);
  current_->close();
  current_ = nullptr;
}

std::vector<OpSnapshot> FlightRecorder::snapshot() const {
  constexpr auto r = std::memory_order_relaxed;
  const uint64_t recorded = recorded_.load(std::memory_order_acquire);
  const uint64_t first = recorded > capacity_ ? recorded - capacity_ : 0;
  std::vector<OpSnapshot> ops;
  for (uint64_t ordinal = first; ordinal < recorded; ++ordinal) {
    const Slot& s = slots_[ordinal % capacity_];
    OpSnapshot o;
    // The writer holds a slot open for a few stores; a few retries suffice,
    // and a reader must never wait on it for long (it may be a signal's dump).
    for (int attempt = 0; attempt < 1000; ++attempt) {
      const uint64_t before = s.version.load(std::memory_order_acquire);
      o.ordinal = s.ordinal.load(r);
      o.info.sequence = s.sequence.load(r);
      o.info.collective = s.collective.load(r);
      o.info.count = s.count.load(r);
      o.info.type = s.type.load(r);
      o.info.op = s.op.load(r);
      o.info.root = s.root.load(r);
      o.algorithm = s.algorithm.load(r);
      o.state = static_cast<OpState>(s.state.load(r));
      o.waitPeer = s.waitPeer.load(r);
      o.waitStep = s.waitStep.load(r);
      o.waitReceiving = s.waitReceiving.load(r) != 0;
      o.issuedTicks = s.issued.load(r);
      o.waitingTicks = s.waitingSince.load(r);
      o.endedTicks = s.ended.load(r);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (before % 2 == 0 && s.version.load(r) == before) break;
    }
    if (o.ordinal == ordinal) ops.push_back(o);  // else overwritten by a newer operation meanwhile
  }
  return ops;
}

}  // namespace trnccl::runtime
