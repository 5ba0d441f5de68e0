#include "transports/ofi/registration_cache.h"

#include <unistd.h>

namespace trnccl::transport::ofi {

RegistrationCache::RegistrationCache(size_t capacity, Register registrar, Deregister deregistrar)
    : capacity_(capacity),
      pageBytes_(static_cast<uintptr_t>(sysconf(_SC_PAGESIZE))),
      register_(std::move(registrar)),
      deregister_(std::move(deregistrar)) {}

RegistrationCache::~RegistrationCache() {
  for (const Entry& e : entries_) deregister_(e.region);
}

RegistrationCache::Lease RegistrationCache::acquire(const void* address, size_t bytes) {
  if (bytes == 0) return {};
  const auto start = reinterpret_cast<uintptr_t>(address);
  const uintptr_t begin = start & ~(pageBytes_ - 1);
  const uintptr_t end = (start + bytes + pageBytes_ - 1) & ~(pageBytes_ - 1);
  for (auto e = entries_.begin(); e != entries_.end(); ++e) {
    if (e->begin <= begin && end <= e->end) {
      ++hits_;
      entries_.splice(entries_.begin(), entries_, e);
      ++e->users;
      return {e->region.desc, e, true};
    }
  }
  ++misses_;
  // Register first: if it throws, the cache is as it was.
  const Region region = register_(begin, end - begin);
  for (auto e = entries_.begin(); e != entries_.end();) {
    const auto next = std::next(e);
    if (e->users == 0 && begin <= e->begin && e->end <= end) drop(e);
    e = next;
  }
  entries_.push_front({begin, end, region, 1});
  // Beyond the bound, the least recently used idle entries go (the new one
  // is in use, at the front).
  for (auto e = std::prev(entries_.end()); entries_.size() > capacity_ && e != entries_.begin();) {
    const auto newer = std::prev(e);
    if (e->users == 0) drop(e);
    e = newer;
  }
  return {region.desc, entries_.begin(), true};
}

void RegistrationCache::release(Lease& lease) {
  if (!lease.held) return;
  --lease.entry->users;
  lease.held = false;
}

void RegistrationCache::drop(std::list<Entry>::iterator entry) {
  deregister_(entry->region);
  entries_.erase(entry);
}

uint64_t RegistrationCache::bytes() const {
  uint64_t total = 0;
  for (const Entry& e : entries_) total += e.end - e.begin;
  return total;
}

}  // namespace trnccl::transport::ofi
