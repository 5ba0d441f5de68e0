// How every wait in trnccl waits: spin briefly (the answer is often a few
// hundred nanoseconds away), then yield the core (ranks oversubscribe the
// host), then block in the caller's wait primitive so a sleeping rank costs
// nothing. reset() after progress.
#pragma once

#include <sched.h>

#include <chrono>
#include <cstdint>

namespace trnccl {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class Backoff {
 public:
  static constexpr uint32_t kSpins = 200;  // rounds of kPausesPerSpin pauses
  static constexpr uint32_t kPausesPerSpin = 8;
  static constexpr uint32_t kYields = 50;

  Backoff() = default;
  // More ranks than cores: a spinning rank only delays the peer it waits for,
  // so go straight to yielding (as Open MPI does when oversubscribed).
  explicit Backoff(bool oversubscribed)
      : spins_(oversubscribed ? 0 : kSpins), yields_(oversubscribed ? 4 * kYields : kYields) {}
  // `spins` rounds of `pausesPerSpin` pauses, then `yields` yields, then block.
  Backoff(uint32_t spins, uint32_t pausesPerSpin, uint32_t yields)
      : spins_(spins), yields_(yields), pausesPerSpin_(pausesPerSpin) {}

  // `block(maxWait)` sleeps until woken or maxWait passes.
  template <class Block>
  void pause(Block&& block) {
    if (rounds_ < spins_) {
      for (uint32_t i = 0; i < pausesPerSpin_; ++i) cpuRelax();
    } else if (rounds_ < spins_ + yields_) {
      sched_yield();
    } else {
      block(std::chrono::microseconds(blockUs_));
      if (blockUs_ < kMaxBlockUs) blockUs_ *= 2;
    }
    ++rounds_;
  }
  void reset() {
    rounds_ = 0;
    blockUs_ = kMinBlockUs;
  }
  // Past spinning: worth the cost of reading the clock on every pause.
  bool patient() const { return rounds_ >= spins_; }

 private:
  static constexpr int64_t kMinBlockUs = 50;
  static constexpr int64_t kMaxBlockUs = 20000;
  uint32_t spins_ = kSpins;
  uint32_t yields_ = kYields;
  uint32_t pausesPerSpin_ = kPausesPerSpin;
  uint32_t rounds_ = 0;
  int64_t blockUs_ = kMinBlockUs;
};

}  // namespace trnccl
