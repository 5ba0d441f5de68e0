// A store-then-load handshake (Dekker's) between a side that runs on every
// call and a side that runs rarely (a sleeper, a destroy, a revoke) needs a
// full fence on both sides: each was a locked instruction on every call.
// With Linux's membarrier (MEMBARRIER_CMD_PRIVATE_EXPEDITED) the frequent
// side's fence is only a compiler barrier, and the rare side's system call
// makes every running thread of the process pass a full fence instead. Both
// fences cover threads of this process only; where membarrier is missing,
// both are full fences.
#pragma once

#include <atomic>

namespace trnccl {

namespace detail {
extern const bool membarrierRegistered;
}

// The frequent side: orders this thread's earlier stores before its later
// loads, as seen by a thread that calls heavyFence().
inline void lightFence() {
  if (detail::membarrierRegistered)
    std::atomic_signal_fence(std::memory_order_seq_cst);
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

// The rare side: a full fence here and in every thread that is running.
void heavyFence();

}  // namespace trnccl
