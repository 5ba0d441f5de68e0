// A bounded cache of memory registrations, for providers that need local
// buffers registered (EFA: FI_MR_LOCAL). Registering costs a system call and
// pins pages, so a buffer used again (the runtime's staging buffers, a
// training loop's gradients) reuses its registration.
//
// A request [address, address + bytes) is rounded out to whole pages. It hits
// an entry that contains it; otherwise it registers exactly the rounded range,
// and entries that range contains are dropped (it serves them from now on).
// Entries in use by a posted operation are never dropped; beyond `capacity`
// entries the least recently used idle ones are.
//
// Like any registration cache without a memory monitor, it assumes that a
// cached range is not unmapped and mapped again with other pages while
// cached; the bound keeps few stale candidates, and every registration ends
// with the transport.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>

namespace trnccl::transport::ofi {

class RegistrationCache {
 public:
  struct Region {
    void* handle = nullptr;  // what `deregister` needs (a fid_mr)
    void* desc = nullptr;    // what operations pass to the provider
  };
  using Register = std::function<Region(uintptr_t begin, size_t bytes)>;
  using Deregister = std::function<void(const Region&)>;

 private:
  struct Entry {
    uintptr_t begin, end;
    Region region;
    int users = 0;
  };

 public:
  // Holds an entry in use until released. A zero-byte request needs no
  // registration: its desc is null.
  struct Lease {
    void* desc = nullptr;
    std::list<Entry>::iterator entry{};
    bool held = false;
  };

  RegistrationCache(size_t capacity, Register registrar, Deregister deregistrar);
  ~RegistrationCache();
  RegistrationCache(const RegistrationCache&) = delete;
  RegistrationCache& operator=(const RegistrationCache&) = delete;

  Lease acquire(const void* address, size_t bytes);
  void release(Lease& lease);

  size_t size() const { return entries_.size(); }
  uint64_t bytes() const;  // registered now, in all entries
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  void drop(std::list<Entry>::iterator entry);

  const size_t capacity_;
  const uintptr_t pageBytes_;
  Register register_;
  Deregister deregister_;
  std::list<Entry> entries_;  // most recently used first
  uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace trnccl::transport::ofi
