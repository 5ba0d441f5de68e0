// Registered memory that peer processes read in place.
//
// trncclMemAlloc memory is a memfd (src/device/memory.h). Once registered
// (trncclCommRegister), an announced send of a user's input
// (transport.h: Request::userInput) from inside it names the file and
// the offset instead of its address (fifo.h: Rts), and a receiver in another
// process maps that file read-only, once, through /proc/<pid>/fd, and copies
// the message out with one memcpy: no staging copy through the FIFO and no
// system call per message (process_vm_readv). The announcement's state word
// still guards every read, so a cancelled send is never read.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "transports/transport.h"

namespace trnccl::transport::shm {

// A file as an Rts names it. `fd` is the sender's descriptor plus one (0: no
// file, the Rts carries an address); `inode` tells a reused descriptor apart.
struct FileRef {
  uint32_t fd = 0;
  uint64_t inode = 0;
  uint64_t offset = 0;  // of the message in the file
  explicit operator bool() const { return fd != 0; }
};

// The sender's registered regions.
class RegisteredFiles {
 public:
  // Throws Error(SystemError) if the file cannot be inspected.
  void add(const SharedRegion& region);
  void remove(const void* base);
  // The registered file holding all of [buffer, buffer + bytes); none if no
  // registration does, or if its memory was freed while registered (its
  // descriptor no longer names the file registered).
  FileRef find(const void* buffer, uint64_t bytes);

 private:
  struct Entry {
    const std::byte* base;
    size_t bytes;
    int fd;
    uint64_t inode;
    int registrations;
  };
  std::vector<Entry> entries_;
};

// The receiver's read-only mappings of one peer's registered files.
class PeerFiles {
 public:
  PeerFiles() = default;
  PeerFiles(PeerFiles&& other) noexcept;
  PeerFiles& operator=(PeerFiles&& other) noexcept;
  PeerFiles(const PeerFiles&) = delete;
  PeerFiles& operator=(const PeerFiles&) = delete;
  ~PeerFiles();

  // Where `bytes` at `file.offset` of the peer's file lie in our address
  // space, mapping the file now if needed; null where it cannot be mapped
  // (the caller streams the message instead). A mapping is dropped only
  // where `mayUnmap` says no copy out of any mapping is under way.
  const std::byte* find(pid_t pid, const FileRef& file, uint64_t bytes, bool mayUnmap);
  uint64_t mappedBytes() const;

  // Beyond this many files per peer, a new one is mapped only in place of the
  // oldest.
  static constexpr size_t kMaxMappings = 32;

 private:
  struct Mapping {
    uint32_t fd;
    uint64_t inode;
    const std::byte* base;
    size_t bytes;
  };
  void unmapAll();
  std::vector<Mapping> mappings_;  // oldest first
  bool refused_ = false;           // the peer's files may not be opened
};

}  // namespace trnccl::transport::shm
