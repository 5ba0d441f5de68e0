#include "api/guard.h"

extern "C" TRNCCL_API const char* trncclGetErrorString(trncclResult_t result) {
  switch (result) {
    case trncclSuccess:
      return "no error";
    case trncclUnhandledDeviceError:
      return "unhandled (simulated) device error";
    case trncclSystemError:
      return "unhandled system error (out of memory, a failed system call, /dev/shm full, ...)";
    case trncclInternalError:
      return "internal error - please report this issue to the trnccl developers";
    case trncclInvalidArgument:
      return "invalid argument";
    case trncclInvalidUsage:
      return "invalid usage";
    case trncclRemoteError:
      return "remote process exited or there was a network error";
    case trncclInProgress:
      return "operation in progress";
    case trncclTimeout:
      return "operation timed out";
    default:
      return "unknown result code";
  }
}

extern "C" TRNCCL_API const char* trncclGetLastError(trncclComm_t comm) { return trnccl::api::lastError(comm); }
