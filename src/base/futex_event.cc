#include "base/futex_event.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <ctime>

namespace trnccl {

void futexWait(std::atomic<uint32_t>& word, uint32_t expected, std::chrono::microseconds maxWait) {
  timespec timeout{static_cast<time_t>(maxWait.count() / 1000000), static_cast<long>(maxWait.count() % 1000000) * 1000};
  // Spurious returns (EINTR, EAGAIN, timeout) are fine: callers re-check.
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, &timeout, nullptr, 0);
}

void futexWakeAll(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace trnccl
