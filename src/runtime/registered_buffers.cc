#include "runtime/registered_buffers.h"

#include <algorithm>

namespace trnccl::runtime {

void* RegisteredBuffers::add(const void* base, size_t bytes, const void* shared) {
  std::lock_guard lock(mutex_);
  regions_.push_back(std::make_unique<Region>(Region{static_cast<const char*>(base), bytes, shared}));
  count_.store(regions_.size(), std::memory_order_relaxed);
  return regions_.back().get();
}

std::optional<const void*> RegisteredBuffers::remove(const void* handle) {
  std::lock_guard lock(mutex_);
  auto it = std::find_if(regions_.begin(), regions_.end(), [&](const auto& r) { return r.get() == handle; });
  if (it == regions_.end()) return std::nullopt;
  const void* shared = (*it)->shared;
  regions_.erase(it);
  count_.store(regions_.size(), std::memory_order_relaxed);
  return shared;
}

size_t RegisteredBuffers::bytes() const {
  std::lock_guard lock(mutex_);
  size_t total = 0;
  for (const auto& r : regions_) total += r->bytes;
  return total;
}

}  // namespace trnccl::runtime
