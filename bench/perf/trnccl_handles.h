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

// A buffer registered with the communicator for the rank's lifetime
// (trncclCommRegister; -R 1), or nothing (-R 0).
class Registration {
 public:
  Registration(trncclComm_t comm, void* buffer, size_t bytes, bool enabled);
  ~Registration();
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;

 private:
  trncclComm_t comm_;
  void* handle_ = nullptr;
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
