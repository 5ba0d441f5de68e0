#include "transports/shm/doorbell.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <ctime>

namespace trnccl::transport::shm {
namespace {

long futex(uint32_t* word, int op, uint32_t value, const timespec* timeout) {
  return syscall(SYS_futex, word, op, value, timeout, nullptr, 0);
}

}  // namespace

uint32_t Doorbell::sequence() const {
  return std::atomic_ref<uint32_t>(word_->sequence).load(std::memory_order_seq_cst);
}

void Doorbell::ring() {
  std::atomic_ref<uint32_t>(word_->sequence).fetch_add(1, std::memory_order_seq_cst);
  if (std::atomic_ref<uint32_t>(word_->sleepers).load(std::memory_order_seq_cst) != 0)
    futex(&word_->sequence, FUTEX_WAKE, INT_MAX, nullptr);
}

void Doorbell::fenceBeforeRinging() { std::atomic_thread_fence(std::memory_order_seq_cst); }

void Doorbell::ringIfSleepingFenced() {
  if (std::atomic_ref<uint32_t>(word_->sleepers).load(std::memory_order_relaxed) != 0) ring();
}

void Doorbell::enter() {
  std::atomic_ref<uint32_t>(word_->sleepers).fetch_add(1, std::memory_order_seq_cst);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // `sleepers` before the last look for work
}

void Doorbell::block(uint32_t seen, std::chrono::microseconds maxWait) {
  const timespec timeout{static_cast<time_t>(maxWait.count() / 1000000),
                         static_cast<long>(maxWait.count() % 1000000) * 1000};
  // EAGAIN (already rung), EINTR and ETIMEDOUT all mean: go and look.
  futex(&word_->sequence, FUTEX_WAIT, seen, &timeout);
}

void Doorbell::leave() { std::atomic_ref<uint32_t>(word_->sleepers).fetch_sub(1, std::memory_order_seq_cst); }

}  // namespace trnccl::transport::shm
