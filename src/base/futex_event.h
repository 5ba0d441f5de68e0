// A wake-up channel between threads of one process. A waiter spins briefly,
// then yields, then sleeps on a futex (the Backoff policy); notify() makes a
// system call only when somebody sleeps, so a hand-off between two busy
// threads costs no syscall at all. Condition variables wake through the
// kernel every time, which dominated small-message latency.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "base/asymmetric_fence.h"
#include "base/backoff.h"

namespace trnccl {

void futexWait(std::atomic<uint32_t>& word, uint32_t expected, std::chrono::microseconds maxWait);
void futexWakeAll(std::atomic<uint32_t>& word);

class FutexEvent {
 public:
  // Waits until ready() or giveUp() is true; returns ready(). Make the state
  // behind ready() true before calling notify().
  template <class Ready, class GiveUp>
  bool wait(Ready&& ready, GiveUp&& giveUp) {
    Backoff backoff;
    for (;;) {
      if (ready()) return true;
      if (giveUp()) return ready();
      backoff.pause([&](std::chrono::microseconds maxWait) {
        const uint32_t epoch = epoch_.load(std::memory_order_acquire);
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        heavyFence();  // pairs with notify()'s light fence
        if (!ready()) futexWait(epoch_, epoch, maxWait);
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
      });
    }
  }

  // A light fence and a load when nobody sleeps (every call's turn ends
  // here); a sleeper pays a heavy fence as it goes to sleep.
  void notify() {
    // Pairs with the sleeper's increment: either it sees the new state in
    // ready(), or we see it counted and change the epoch it sleeps on.
    lightFence();
    notifyFenced();
  }
  // notify() for a caller that has fenced (lightFence() or stronger) since it
  // made ready() true, so that two events changed together share one fence.
  void notifyFenced() {
    if (sleepers_.load(std::memory_order_relaxed) == 0) return;
    epoch_.fetch_add(1, std::memory_order_release);
    futexWakeAll(epoch_);
  }

 private:
  std::atomic<uint32_t> epoch_{0};
  std::atomic<uint32_t> sleepers_{0};
};

}  // namespace trnccl
