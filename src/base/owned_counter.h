// A counter that one thread adds to and any thread may read (figures such as
// a rail's bytes, read by monitoring while the progressing thread counts).
// Its owner adds with a relaxed load and store, a plain move on x86, not an
// atomic read-modify-write: nobody else writes it, so nothing is lost.
#pragma once

#include <atomic>
#include <cstdint>

namespace trnccl {

class OwnedCounter {
 public:
  OwnedCounter() = default;
  // Copies (when the structure holding it moves) take a snapshot.
  OwnedCounter(const OwnedCounter& other) : value_(other.get()) {}
  OwnedCounter& operator=(const OwnedCounter& other) {
    value_.store(other.get(), std::memory_order_relaxed);
    return *this;
  }

  void add(uint64_t amount) {
    value_.store(value_.load(std::memory_order_relaxed) + amount, std::memory_order_relaxed);
  }
  void subtract(uint64_t amount) {
    value_.store(value_.load(std::memory_order_relaxed) - amount, std::memory_order_relaxed);
  }
  uint64_t get() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

}  // namespace trnccl
