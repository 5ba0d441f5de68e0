// What a call does between its rounds of polling: after a round that moved
// something, it spins again; after one that moved nothing, it gives up when
// the communicator is stopped or the timeout has passed, tells the flight
// recorder what it waits for, and backs off (spin, yield, then block in the
// transport), so waiting ranks leave the cores to the ranks they wait for.
#pragma once

#include <chrono>
#include <string>

#include "base/backoff.h"
#include "runtime/executor.h"

namespace trnccl::runtime {

// "allreduce #12 on rank 3", for messages.
std::string describeCall(const Call& call, int rank);

// What the oldest unfinished part of a call waits for (peer -1: nothing).
struct WaitTarget {
  int peer = -1;
  bool receiving = false;
  size_t step = 0, slice = 0, slices = 0;
};

class IdleWait {
 public:
  IdleWait(const ExecutorContext& ctx, const Call& call, const char* algorithm);

  // After a round that moved something (also the round that finished).
  void progressed() {
    if (idleSince_ != Clock::time_point{}) resume();
    backoff_.reset();
  }

  // After a round that moved nothing. `target()` gives what the call waits
  // for; `what(target)` says it for the timeout's message ("to receive from
  // rank 3 (step 2, slice 1 of 4)"). Throws trnccl::Error when stopped or
  // timed out.
  template <class Target, class What>
  void idle(Target&& target, What&& what) {
    checkStop();
    // The clock is read only once spinning is over: a busy wait stays cheap.
    if (backoff_.patient()) {
      const Clock::time_point now = Clock::now();
      if (idleSince_ == Clock::time_point{}) {
        idleSince_ = now;
        waiting(target());
      }
      if (now - idleSince_ > ctx_.timeout) timedOut(what(target()));
    }
    pause();
  }

 private:
  using Clock = std::chrono::steady_clock;
  void checkStop() const;
  void waiting(const WaitTarget& target) const;
  void resume();
  [[noreturn]] void timedOut(const std::string& what) const;
  void pause();

  const ExecutorContext& ctx_;
  const Call& call_;
  const char* algorithm_;
  Backoff backoff_;
  Clock::time_point idleSince_{};
};

}  // namespace trnccl::runtime
