#include "base/asymmetric_fence.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

namespace trnccl {
namespace {

long membarrier(int command) { return syscall(SYS_membarrier, command, 0, 0); }

// Registered once, when the library loads, before any light fence can rely
// on it (a constant afterwards).
bool registerMembarrier() {
  const long commands = membarrier(MEMBARRIER_CMD_QUERY);
  if (commands < 0 || (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return false;
  return membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

}  // namespace

namespace detail {
const bool membarrierRegistered = registerMembarrier();
}

void heavyFence() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (detail::membarrierRegistered && membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
    // Registered, so it cannot fail; if it ever did, the light side's
    // compiler barrier would not be enough, and nothing here could mend it.
    std::abort();
  }
}

}  // namespace trnccl
