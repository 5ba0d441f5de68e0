// A rank's doorbell: an eventcount on a futex word in the rank's own shared
// segment. Whoever gives the rank something to do (a slot in one of its
// FIFOs, space in a FIFO it waits on, an interrupt) rings it; the rank sleeps
// on it when it has nothing to do, and burns no CPU while asleep.
//
// Protocol: the ringer publishes its work first, then bumps `sequence` and
// calls FUTEX_WAKE only if `sleepers` is non-zero. The sleeper registers in
// `sleepers` first, then sleeps only while `sequence` still equals the value
// it read before it last looked for work. Both sides use seq_cst, so either
// the ringer sees the sleeper or the sleeper sees the new sequence: no lost
// wake-up. The futex is shared (not FUTEX_PRIVATE): ringers are other
// processes.
//
// Work the sleeper can see for itself (a slot in its FIFOs: the hot path)
// rings only if someone sleeps (ringIfSleeping), so a busy rank's doorbell
// line is not written on every message: after registering, the sleeper looks
// for such work once more (sleep()'s `arrived`), and the ringer reads
// `sleepers` after a full fence, so either the ringer sees the sleeper or the
// sleeper sees the work.
#pragma once

#include <chrono>
#include <cstdint>

namespace trnccl::transport::shm {

struct alignas(64) DoorbellWord {
  uint32_t sequence;
  uint32_t sleepers;
};

class Doorbell {
 public:
  explicit Doorbell(DoorbellWord* word) : word_(word) {}

  uint32_t sequence() const;
  void ring();
  // After publishing work that the sleeper's `arrived` looks for.
  void ringIfSleeping() {
    fenceBeforeRinging();
    ringIfSleepingFenced();
  }
  // ringIfSleeping() in two parts, so that one fence serves several doorbells.
  static void fenceBeforeRinging();  // the work before `sleepers`
  void ringIfSleepingFenced();
  // Sleep until the sequence moves away from `seen`, or maxWait passes,
  // unless `arrived()` (called once registered as a sleeper) finds work.
  template <class Arrived>
  void sleep(uint32_t seen, std::chrono::microseconds maxWait, Arrived&& arrived) {
    if (maxWait.count() <= 0) return;
    enter();
    if (sequence() == seen && !arrived()) block(seen, maxWait);
    leave();
  }
  void sleep(uint32_t seen, std::chrono::microseconds maxWait) {
    sleep(seen, maxWait, [] { return false; });
  }

 private:
  void enter();
  void block(uint32_t seen, std::chrono::microseconds maxWait);
  void leave();

  DoorbellWord* word_;
};

}  // namespace trnccl::transport::shm
