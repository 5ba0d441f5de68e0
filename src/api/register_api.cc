// User-buffer registration (NCCL 2.19's ncclCommRegister): a promise that the
// memory stays allocated until deregistered, not a requirement (any buffer
// works in any call). Registered trncclMemAlloc memory is read in place by
// peer processes on the host (transports/shm/shared_files.h).
#include <cstdint>
#include <string>

#include "api/guard.h"
#include "api/handles.h"

using trnccl::throwInvalidArgument;
using trnccl::api::guarded;

extern "C" TRNCCL_API trncclResult_t trncclCommRegister(const trncclComm_t comm, void* buff, size_t size,
                                                        void** handle) {
  return guarded("trncclCommRegister", comm, [&] {
    trnccl::core::Communicator& c = trnccl::api::usableComm(comm);
    if (buff == nullptr) throwInvalidArgument("buff", "is NULL");
    if (size == 0) throwInvalidArgument("size", "is 0; register at least one byte");
    if (reinterpret_cast<uintptr_t>(buff) > UINTPTR_MAX - size)
      throwInvalidArgument("size", "= " + std::to_string(size) + " runs past the end of the address space from buff");
    if (handle == nullptr) throwInvalidArgument("handle", "is NULL");
    *handle = c.registerBuffer(buff, size);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclCommDeregister(const trncclComm_t comm, void* handle) {
  return guarded("trncclCommDeregister", comm, [&] {
    trnccl::core::Communicator& c = trnccl::api::liveComm(comm);  // also after a failure: to clean up
    if (handle == nullptr) throwInvalidArgument("handle", "is NULL");
    if (!c.deregisterBuffer(handle))
      throwInvalidArgument("handle",
                           "is not a registration of this communicator (deregistered already, or never made)");
  });
}
