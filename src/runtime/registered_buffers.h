// The user buffers registered with a communicator (trncclCommRegister): the
// executor marks a send from one of them, and the transport may then let the
// peer read it in place instead of staging a copy (transport::Request::registered).
//
// Registering and deregistering may happen on any thread while operations run
// on another; lookups take a lock only while something is registered, so a
// communicator without registrations pays one relaxed load per send.
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
  // True if [p, p + bytes) lies inside one registered buffer.
  bool contains(const void* p, size_t bytes) const;
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
