#include "device/memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>

#include "base/error.h"

namespace trnccl::device {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<uintptr_t, Allocation> byBase;
};

Registry& registry() {
  static Registry* instance = new Registry;  // outlives static destructors
  return *instance;
}

size_t pageRound(size_t size) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (size + page - 1) / page * page;
}

}  // namespace

void* allocate(size_t size) {
  if (size == 0) throwInvalidArgument("size", "is 0");
  const size_t bytes = pageRound(size);
  if (bytes < size) throwInvalidArgument("size", "is too large");
  int fd = memfd_create("trnccl-hbm", MFD_CLOEXEC);
  if (fd < 0) throwSystemError("memfd_create for device memory", errno);
  // Reserve the pages now: a full host gives an error here, not SIGBUS later.
  if (int err = posix_fallocate(fd, 0, static_cast<off_t>(bytes)); err != 0) {
    close(fd);
    throwError(trncclSystemError,
               "cannot reserve " + std::to_string(bytes) + " bytes of device memory: " + std::strerror(err));
  }
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    int err = errno;
    close(fd);
    throwSystemError("mmap of " + std::to_string(bytes) + " bytes of device memory", err);
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.byBase[reinterpret_cast<uintptr_t>(base)] = Allocation{base, bytes, fd};
  return base;
}

void release(void* ptr) {
  if (ptr == nullptr) throwInvalidArgument("ptr", "is NULL");
  Allocation a;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.byBase.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == r.byBase.end()) throwInvalidArgument("ptr", "was not returned by trncclMemAlloc (or was already freed)");
    a = it->second;
    r.byBase.erase(it);
  }
  munmap(a.base, a.size);
  close(a.fd);
}

std::optional<Allocation> find(const void* ptr, size_t bytes) {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.byBase.upper_bound(p);
  if (it == r.byBase.begin()) return std::nullopt;
  --it;
  const Allocation& a = it->second;
  if (p + bytes > it->first + a.size || p + bytes < p) return std::nullopt;
  return a;
}

}  // namespace trnccl::device
