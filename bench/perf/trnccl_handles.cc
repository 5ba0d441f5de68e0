#include "trnccl_handles.h"

#include "trnccl_error.h"

namespace trnccl::perf {

DeviceBuffer::DeviceBuffer(size_t bytes) {
  void* memory = nullptr;
  check_trnccl(trncclMemAlloc(&memory, bytes), "trncclMemAlloc", nullptr);
  data_ = static_cast<std::byte*>(memory);
}

DeviceBuffer::~DeviceBuffer() { trncclMemFree(data_); }

Stream::Stream(bool blocking) {
  if (!blocking) check_trnccl(trncclStreamCreate(&stream_), "trncclStreamCreate", nullptr);
}

Stream::~Stream() {
  if (stream_ != nullptr) trncclStreamDestroy(stream_);
}

void Stream::synchronize() const {
  if (stream_ != nullptr) check_trnccl(trncclStreamSynchronize(stream_), "trncclStreamSynchronize", nullptr);
}

}  // namespace trnccl::perf
