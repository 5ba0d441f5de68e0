// The user buffers registered with a communicator (trncclCommRegister), kept
// so that deregistration can check its handle, with the shareable allocation
// (trncclMemAlloc's memfd) each lies in, which the transports were given:
// the shm transport lets peer processes read such memory in place
// (transports/shm/shared_files.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace trnccl::runtime {

class RegisteredBuffers {
 public:
  // Registers [base, base + bytes), which lies in the shareable allocation at
  // `shared` (null: none), and returns its handle (never null).
  void* add(const void* base, size_t bytes, const void* shared);
  // Removes the registration and returns its `shared`; nullopt if `handle`
  // is not a live registration of this set (never dereferenced).
  std::optional<const void*> remove(const void* handle);
  size_t count() const { return count_.load(std::memory_order_relaxed); }
  size_t bytes() const;  // registered in all

 private:
  struct Region {
    const char* base;
    size_t bytes;
    const void* shared;
  };
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Region>> regions_;
  std::atomic<size_t> count_{0};
};

}  // namespace trnccl::runtime
