// The flight recorder: a bounded ring of a communicator's last N operations
// (what was called, with which algorithm, its state, the peer and step it
// waits on, when), written on the hot path without locks or allocation and
// read at any time from another thread (a dump on timeout, abort or SIGUSR1).
//
// One writer at a time: a communicator's operations take turns, and the turn
// hand-off orders one writer's stores before the next's. Readers copy a slot
// under its version number (a seqlock of relaxed atomics), so a dump never
// blocks the writer and never sees half an update.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/ticks.h"

namespace trnccl::runtime {

enum class OpState : uint8_t { Issued, Running, Waiting, Done, Failed };
const char* opStateName(OpState s);  // "issued", ...

inline constexpr uint64_t kNoSequence = ~uint64_t(0);  // a send/recv group

// What a call is, as the recorder keeps it. Names are static strings or live
// as long as the communicator (algorithm names belong to its tuner).
struct OpInfo {
  uint64_t sequence = kNoSequence;
  const char* collective = "";
  uint64_t count = 0;
  int type = -1;  // trncclDataType_t
  int op = -1;    // trncclRedOp_t; -1: the call reduces nothing
  int root = -1;  // -1: not rooted
};

// One operation as a dump sees it.
struct OpSnapshot {
  uint64_t ordinal = 0;  // operations recorded before this one
  OpInfo info;
  const char* algorithm = "";
  OpState state = OpState::Issued;
  int waitPeer = -1;      // the peer it waits on now (or when it failed); -1: none
  int64_t waitStep = -1;  // the step of the schedule
  bool waitReceiving = false;
  // When its turn began, when it last began to wait, when it ended (0: not yet).
  uint64_t issuedTicks = 0, waitingTicks = 0, endedTicks = 0;
};

class FlightRecorder {
 public:
  explicit FlightRecorder(size_t capacity);
  ~FlightRecorder();
  FlightRecorder(const FlightRecorder&) = delete;
  FlightRecorder& operator=(const FlightRecorder&) = delete;

  size_t capacity() const { return capacity_; }
  const TickClock& clock() const { return clock_; }

  // The writer's side, in the order an operation goes through them.
  // With `algorithm`: begun and running at once.
  void begin(const OpInfo& info, const char* algorithm = nullptr);
  void running(const char* algorithm);
  void waiting(int peer, int64_t step, bool receiving);  // blocked on a peer
  void resumed();                                        // progress again: the wait is cleared
  void finish(bool ok);

  // The last min(N, recorded) operations, oldest first. Any thread.
  std::vector<OpSnapshot> snapshot() const;

 private:
  struct Slot;

  size_t capacity_;
  std::unique_ptr<Slot[]> slots_;
  std::atomic<uint64_t> recorded_{0};
  Slot* current_ = nullptr;  // the writer's operation
  TickClock clock_;
};

}  // namespace trnccl::runtime
