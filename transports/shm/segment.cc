#include "transports/shm/segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>

#include "base/error.h"
#include "topology/host.h"

namespace trnccl::transport::shm {
namespace {

// The mapping keeps the segment alive; the descriptor is closed either way.
std::byte* mapAndClose(int fd, size_t bytes, const std::string& name) {
  void* data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  close(fd);
  if (data == MAP_FAILED) throwSystemError("mmap of shared-memory segment " + name, err);
  return static_cast<std::byte*>(data);
}

// The size of the /dev/shm file system; a segment larger than it can never be
// committed, so it is refused at creation even when its pages come lazily.
uint64_t devShmCapacityBytes() {
  struct statvfs fs;
  if (statvfs("/dev/shm", &fs) != 0) return UINT64_MAX;
  return static_cast<uint64_t>(fs.f_blocks) * fs.f_frsize;
}

}  // namespace

std::string freeBytesInDevShm() {
  struct statvfs fs;
  if (statvfs("/dev/shm", &fs) != 0) return "an unknown number of";
  return std::to_string(static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize);
}

std::string segmentName(const std::string& jobKey, const std::string& role) {
  // Keep the job key readable (it tells whose segment this is) but only in
  // characters that are safe in a file name, and short enough for NAME_MAX.
  std::string key;
  for (char c : jobKey.substr(0, 64))
    key += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  if (key.empty()) key = "job";
  std::random_device random;
  const uint64_t nonce = (uint64_t{random()} << 32) | random();
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "-%016llx", static_cast<unsigned long long>(nonce));
  std::string name = "/";
  name.append(kSegmentPrefix).append(key).append("-").append(role).append(suffix);
  return name;
}

bool Segment::committingLaterWorks() {
  static const bool works = [] {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* probe = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (probe == MAP_FAILED) return false;
    const bool ok = madvise(probe, page, MADV_POPULATE_WRITE) == 0;
    munmap(probe, page);
    return ok;
  }();
  return works;
}

int Segment::commit(const ByteRange& range) const {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t begin = range.offset / page * page;
  const uint64_t end = std::min<uint64_t>(size_, range.offset + range.bytes);
  if (end <= begin) return 0;
  if (madvise(data_ + begin, end - begin, MADV_POPULATE_WRITE) == 0) return 0;
  // EFAULT is how the kernel says the access would have raised SIGBUS: tmpfs
  // had no page to give.
  return errno == EFAULT ? ENOSPC : errno;
}

Segment Segment::create(const std::string& name, size_t bytes, const std::string& purpose, const cpu_set_t* near,
                        std::span<const ByteRange> reservedFirst) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throwSystemError("shm_open(" + name + ") in /dev/shm", errno);
  // Mapped before its pages are reserved, so that tmpfs allocates them where
  // placeMemoryNear asked. A failed mapping is reported after the
  // reservation, whose error says more.
  void* data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int mapErr = errno;
  if (data != MAP_FAILED && near != nullptr) topo::placeMemoryNear(data, bytes, *near);
  // posix_fallocate takes an off_t: a size beyond it cannot fit either.
  int err = bytes > static_cast<size_t>(INT64_MAX) ? EFBIG : 0;
  if (err == 0 && bytes > devShmCapacityBytes()) err = ENOSPC;
  if (err == 0 && (reservedFirst.empty() || !committingLaterWorks())) {
    err = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  } else if (err == 0) {
    err = ftruncate(fd, static_cast<off_t>(bytes)) == 0 ? 0 : errno;
    for (const ByteRange& r : reservedFirst)
      if (err == 0 && r.bytes > 0) err = posix_fallocate(fd, static_cast<off_t>(r.offset), static_cast<off_t>(r.bytes));
  }
  close(fd);
  if (err == 0 && data != MAP_FAILED) return Segment(static_cast<std::byte*>(data), bytes);
  if (data != MAP_FAILED) munmap(data, bytes);
  unlink(name);
  if (err != 0)
    throwError(trncclSystemError, "cannot reserve " + std::to_string(bytes) + " bytes in /dev/shm for " + purpose +
                                      " (segment " + name + "): " + std::strerror(err) + "; /dev/shm has " +
                                      freeBytesInDevShm() + " bytes free");
  throwSystemError("mmap of shared-memory segment " + name, mapErr);
}

Segment Segment::open(const std::string& name, size_t bytes) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) throwSystemError("shm_open(" + name + ") of a peer's segment in /dev/shm", errno);
  struct stat st;
  if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) != bytes) {
    close(fd);
    throwError(trncclSystemError,
               "shared-memory segment " + name + " is not the " + std::to_string(bytes) + " bytes its owner announced");
  }
  return Segment(mapAndClose(fd, bytes, name), bytes);
}

void Segment::unlink(const std::string& name) noexcept { shm_unlink(name.c_str()); }

Segment::Segment(Segment&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

Segment& Segment::operator=(Segment&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Segment::~Segment() {
  if (data_ != nullptr) munmap(data_, size_);
}

}  // namespace trnccl::transport::shm
