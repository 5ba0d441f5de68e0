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
  // Sleep until the sequence moves away from `seen`, or maxWait passes.
  void sleep(uint32_t seen, std::chrono::microseconds maxWait);

 private:
  DoorbellWord* word_;
};

}  // namespace trnccl::transport::shm
