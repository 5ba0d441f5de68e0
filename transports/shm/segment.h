// POSIX shared-memory segments in /dev/shm: created private (0600, O_EXCL)
// with every page reserved up front, so a full /dev/shm fails at setup with a
// clear error instead of SIGBUS on first touch; mapped by name; unlinked by
// name as soon as every rank has mapped them (the mappings outlive the name).
#pragma once

#include <sched.h>

#include <cstddef>
#include <string>

namespace trnccl::transport::shm {

// Every segment's file name in /dev/shm starts with this.
inline constexpr const char kSegmentPrefix[] = "trnccl-shm-";

// "/trnccl-shm-<job key>-<role>-<random>": unique per communicator and role
// (a rank's segment: "r<rank>"; the job's link board: "links").
std::string segmentName(const std::string& jobKey, const std::string& role);

class Segment {
 public:
  // Throws Error(trncclSystemError); when /dev/shm lacks room the message names
  // /dev/shm, the bytes needed, the bytes free and `purpose`. With `near`, its
  // pages are placed on the NUMA node nearest those cores (best effort).
  static Segment create(const std::string& name, size_t bytes, const std::string& purpose,
                        const cpu_set_t* near = nullptr);
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

 private:
  Segment(std::byte* data, size_t size) : data_(data), size_(size) {}
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace trnccl::transport::shm
