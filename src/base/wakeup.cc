#include "base/wakeup.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "base/error.h"

namespace trnccl {

Wakeup::Wakeup() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (fd_ < 0) throwSystemError("eventfd", errno);
}

Wakeup::~Wakeup() { close(fd_); }

void Wakeup::wake() {
  const uint64_t one = 1;
  // Fails only when the counter is saturated, which wakes the poll just as well.
  [[maybe_unused]] ssize_t written = write(fd_, &one, sizeof one);
}

void Wakeup::clear() {
  uint64_t count;
  [[maybe_unused]] ssize_t got = read(fd_, &count, sizeof count);  // EAGAIN: nothing to clear
}

}  // namespace trnccl
