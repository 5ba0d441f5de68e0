#include "device/memory.h"
#include "api/guard.h"

extern "C" TRNCCL_API trncclResult_t trncclMemAlloc(void** ptr, size_t size) {
  return trnccl::api::guarded("trncclMemAlloc", nullptr, [&] {
    if (ptr == nullptr) trnccl::throwInvalidArgument("ptr", "is NULL");
    *ptr = trnccl::device::allocate(size);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclMemFree(void* ptr) {
  return trnccl::api::guarded("trncclMemFree", nullptr, [&] { trnccl::device::release(ptr); });
}
