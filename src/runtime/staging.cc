#include "runtime/staging.h"

#include <cstdlib>
#include <new>

namespace trnccl::runtime {

void StagingPool::FreeDeleter::operator()(void* p) const { std::free(p); }

void* StagingPool::acquire() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!free_.empty()) {
    void* b = free_.back();
    free_.pop_back();
    return b;
  }
  // Page-aligned so the kernels' vector loads and cross-process copies are aligned.
  void* b = std::aligned_alloc(4096, (bufferBytes_ + 4095) / 4096 * 4096);
  if (b == nullptr) throw std::bad_alloc();
  owned_.emplace_back(b);
  return b;
}

void StagingPool::release(void* buffer) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(buffer);
}

}  // namespace trnccl::runtime
