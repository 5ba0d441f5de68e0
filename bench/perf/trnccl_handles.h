#pragma once

#include <cstddef>

#include "trnccl/trnccl.h"

namespace trnccl::perf {

// Simulated device memory from trncclMemAlloc, as a benchmark on real
// hardware would use device memory.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  std::byte* data() const { return data_; }

 private:
  std::byte* data_ = nullptr;
};

// The stream a rank issues its calls on: a trnccl stream, or NULL for
// blocking calls (-z 1).
class Stream {
 public:
  explicit Stream(bool blocking);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  trncclStream_t handle() const { return stream_; }
  // Waits for everything issued so far; blocking calls have nothing to wait for.
  void synchronize() const;

 private:
  trncclStream_t stream_ = nullptr;
};

}  // namespace trnccl::perf
