// POSIX shared-memory segments in /dev/shm: created private (0600, O_EXCL);
// mapped by name; unlinked by name as soon as every rank has mapped them (the
// mappings outlive the name). A page of /dev/shm is never touched before it
// is reserved, so a full /dev/shm is a clear error, never SIGBUS: either
// every page is reserved at creation, or the parts needed at once are and
// the rest is committed later, before first use, through any mapping
// (commit(): madvise MADV_POPULATE_WRITE, Linux 5.14 and later).
#pragma once

#include <sched.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace trnccl::transport::shm {

// Every segment's file name in /dev/shm starts with this.
inline constexpr const char kSegmentPrefix[] = "trnccl-shm-";

// What statvfs says /dev/shm has free, in bytes, as text for messages.
std::string freeBytesInDevShm();

// "/trnccl-shm-<job key>-<role>-<random>": unique per communicator and role
// (a rank's segment: "r<rank>"; the job's link board: "links").
std::string segmentName(const std::string& jobKey, const std::string& role);

struct ByteRange {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

class Segment {
 public:
  // Throws Error(trncclSystemError); when /dev/shm lacks room the message names
  // /dev/shm, the bytes needed, the bytes free and `purpose`. With `near`, its
  // pages are placed on the NUMA node nearest those cores (best effort).
  // `reservedFirst` non-empty and committingLaterWorks(): only those ranges
  // are reserved now, and the owner of the rest must commit() it before use.
  static Segment create(const std::string& name, size_t bytes, const std::string& purpose,
                        const cpu_set_t* near = nullptr, std::span<const ByteRange> reservedFirst = {});
  // Whether pages can be committed after creation on this kernel.
  static bool committingLaterWorks();
  // Maps an existing segment, which must be exactly `bytes` long.
  static Segment open(const std::string& name, size_t bytes);
  // Removes the name; ignores a name that is already gone.
  static void unlink(const std::string& name) noexcept;

  Segment() = default;
  Segment(Segment&& other) noexcept;
  Segment& operator=(Segment&& other) noexcept;
  ~Segment();

  std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  // Allocates the pages under `range` now (a no-op for pages that have
  // some). 0, or the errno: EFAULT or ENOMEM when /dev/shm has no room.
  int commit(const ByteRange& range) const;

 private:
  Segment(std::byte* data, size_t size) : data_(data), size_(size) {}
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace trnccl::transport::shm
