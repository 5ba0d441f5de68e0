#include "base/peer_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace trnccl {

uint64_t pidNamespaceId() {
  struct stat st;
  if (stat("/proc/self/ns/pid", &st) != 0) return 0;
  return (static_cast<uint64_t>(st.st_dev) << 32) ^ st.st_ino;
}

void allowPeerMemoryReads() {
  // EINVAL without Yama: then nothing needs allowing.
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
}

PeerProcess::PeerProcess(pid_t pid, bool addressable)
    : pid_(pid), addressable_(addressable), sameProcess_(addressable && pid == getpid()) {
  if (addressable_ && !sameProcess_) pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

PeerProcess::PeerProcess(PeerProcess&& other) noexcept
    : pid_(other.pid_),
      addressable_(other.addressable_),
      sameProcess_(other.sameProcess_),
      pidfd_(std::exchange(other.pidfd_, -1)) {}

PeerProcess& PeerProcess::operator=(PeerProcess&& other) noexcept {
  if (this != &other) {
    if (pidfd_ >= 0) close(pidfd_);
    pid_ = other.pid_;
    addressable_ = other.addressable_;
    sameProcess_ = other.sameProcess_;
    pidfd_ = std::exchange(other.pidfd_, -1);
  }
  return *this;
}

PeerProcess::~PeerProcess() {
  if (pidfd_ >= 0) close(pidfd_);
}

bool PeerProcess::hasExited() const {
  if (!addressable_ || sameProcess_) return false;
  if (pidfd_ >= 0) {
    pollfd p{pidfd_, POLLIN, 0};
    return poll(&p, 1, 0) > 0;
  }
  // Kernels before 5.3 have no pidfd; kill() cannot tell a zombie (a peer
  // its parent has not reaped yet) from a live process.
  return kill(pid_, 0) != 0 && errno == ESRCH;
}

int PeerProcess::copyFrom(void* local, uint64_t remote, size_t bytes) const {
  if (sameProcess_) {
    std::memcpy(local, reinterpret_cast<const void*>(remote), bytes);
    return 0;
  }
  auto* to = static_cast<char*>(local);
  while (bytes > 0) {
    iovec mine{to, bytes};
    iovec theirs{reinterpret_cast<void*>(remote), bytes};
    const ssize_t n = process_vm_readv(pid_, &mine, 1, &theirs, 1, 0);
    if (n < 0) return errno;
    if (n == 0) return EFAULT;
    to += n;
    remote += static_cast<uint64_t>(n);
    bytes -= static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace trnccl
