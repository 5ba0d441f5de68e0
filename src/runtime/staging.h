// Slice-sized staging buffers for the executor (received data waiting to be
// reduced, reduced data waiting to be sent). Kept per communicator and reused
// across calls, so a collective allocates nothing in steady state and its
// memory stays bounded: (slices in flight) x (slice size) per channel.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace trnccl::runtime {

class StagingPool {
 public:
  explicit StagingPool(size_t bufferBytes) : bufferBytes_(bufferBytes) {}
  size_t bufferBytes() const { return bufferBytes_; }
  void* acquire();
  void release(void* buffer);

 private:
  struct FreeDeleter {
    void operator()(void* p) const;
  };
  size_t bufferBytes_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<void, FreeDeleter>> owned_;
  std::vector<void*> free_;
};

// A buffer held for a scope.
class StagingBuffer {
 public:
  StagingBuffer() = default;
  explicit StagingBuffer(StagingPool& pool) : pool_(&pool), data_(pool.acquire()) {}
  StagingBuffer(StagingBuffer&& o) noexcept : pool_(o.pool_), data_(o.data_) { o.data_ = nullptr; }
  StagingBuffer& operator=(StagingBuffer&& o) noexcept {
    std::swap(pool_, o.pool_);
    std::swap(data_, o.data_);
    return *this;
  }
  ~StagingBuffer() {
    if (data_ != nullptr) pool_->release(data_);
  }
  void* data() const { return data_; }

 private:
  StagingPool* pool_ = nullptr;
  void* data_ = nullptr;
};

}  // namespace trnccl::runtime
