// The process behind a peer rank on this host: whether it is still alive, and
// single-copy reads from its memory (cross-memory attach, or plain memcpy when
// the peer is a thread of this very process).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace trnccl {

// Identifies this process's pid namespace: pids mean the same thing only
// between processes that agree on it.
uint64_t pidNamespaceId();

// Lets any process of ours read this one's memory with process_vm_readv
// (Yama's ptrace_scope=1 would otherwise refuse non-descendants).
void allowPeerMemoryReads();

class PeerProcess {
 public:
  PeerProcess() = default;
  // `addressable`: the pid is valid in our pid namespace.
  PeerProcess(pid_t pid, bool addressable);
  PeerProcess(PeerProcess&& other) noexcept;
  PeerProcess& operator=(PeerProcess&& other) noexcept;
  ~PeerProcess();

  pid_t pid() const { return pid_; }
  bool isThisProcess() const { return sameProcess_; }
  bool addressable() const { return addressable_; }
  // True once the process has terminated (a zombie counts). Always false for
  // this process, and for a process we cannot address.
  bool hasExited() const;
  // Copies `bytes` from `remote` in the peer's address space; 0 or an errno
  // value (EPERM/ENOSYS: not allowed here, ESRCH: gone, EFAULT: bad address).
  // A thread of this process is not checked: it shares our address space, so
  // its bad pointer could hurt us anyway.
  int copyFrom(void* local, uint64_t remote, size_t bytes) const;

 private:
  pid_t pid_ = 0;
  bool addressable_ = false;
  bool sameProcess_ = false;
  int pidfd_ = -1;  // readable once the process exits
};

}  // namespace trnccl
