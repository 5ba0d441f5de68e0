#include "runtime/registered_buffers.h"

#include <algorithm>

namespace trnccl::runtime {

void* RegisteredBuffers::add(const void* base, size_t bytes) {
  std::lock_guard lock(mutex_);
  regions_.push_back(std::make_unique<Region>(Region{static_cast<const char*>(base), bytes}));
  count_.store(regions_.size(), std::memory_order_relaxed);
  return regions_.back().get();
}

bool RegisteredBuffers::remove(const void* handle) {
  std::lock_guard lock(mutex_);
  auto it = std::find_if(regions_.begin(), regions_.end(), [&](const auto& r) { return r.get() == handle; });
  if (it == regions_.end()) return false;
  regions_.erase(it);
  count_.store(regions_.size(), std::memory_order_relaxed);
  return true;
}

size_t RegisteredBuffers::bytes() const {
  std::lock_guard lock(mutex_);
  size_t total = 0;
  for (const auto& r : regions_) total += r->bytes;
  return total;
}

}  // namespace trnccl::runtime
