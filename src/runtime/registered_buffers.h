// The user buffers registered with a communicator (trncclCommRegister),
// kept so that deregistration can check its handle. No transport reads them
// yet: on the development host a single copy out of a registered buffer lost
// to the FIFO's two cache-resident copies at every size where it changed the
// path (a peer thread's memcpy after an announcement's round trip, 16-64 KiB:
// 1.0-2x slower; a peer process's process_vm_readv: 3-5x slower); see README.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace trnccl::runtime {

class RegisteredBuffers {
 public:
  // Registers [base, base + bytes) and returns its handle (never null).
  void* add(const void* base, size_t bytes);
  // False if `handle` is not a live registration of this set; never
  // dereferences it.
  bool remove(const void* handle);
  size_t count() const { return count_.load(std::memory_order_relaxed); }
  size_t bytes() const;  // registered in all

 private:
  struct Region {
    const char* base;
    size_t bytes;
  };
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Region>> regions_;
  std::atomic<size_t> count_{0};
};

}  // namespace trnccl::runtime
