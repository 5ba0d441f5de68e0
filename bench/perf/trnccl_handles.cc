#include "trnccl_handles.h"

#include "trnccl_error.h"

namespace trnccl::perf {

DeviceBuffer::DeviceBuffer(size_t bytes) {
  void* memory = nullptr;
  check_trnccl(trncclMemAlloc(&memory, bytes), "trncclMemAlloc", nullptr);
  data_ = static_cast<std::byte*>(memory);
}

DeviceBuffer::~DeviceBuffer() { trncclMemFree(data_); }

Registration::Registration(trncclComm_t comm, void* buffer, size_t bytes, bool enabled) : comm_(comm) {
  if (enabled) check_trnccl(trncclCommRegister(comm, buffer, bytes, &handle_), "trncclCommRegister", comm);
}

Registration::~Registration() {
  if (handle_ != nullptr) trncclCommDeregister(comm_, handle_);
}

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
