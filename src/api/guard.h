// Every C entry point runs its body through guarded(): exceptions become
// result codes and the message is kept for trncclGetLastError.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "api/handles.h"
#include "base/error.h"
#include "base/log.h"
#include "trnccl/trnccl.h"

namespace trnccl::api {

// Remembers `message` as this thread's last error and, if comm is live, as
// the communicator's.
void setLastError(trncclComm_t comm, const std::string& message);
const char* lastError(trncclComm_t comm);

template <class Body>
trncclResult_t guarded(const char* function, trncclComm_t comm, Body&& body) noexcept {
  const CommHold hold(comm);  // released last: after the error is recorded
  try {
    body();
    return trncclSuccess;
  } catch (const Error& e) {
    setLastError(comm, std::string(function) + ": " + e.what());
    TRNCCL_INFO("%s failed: %s", function, e.what());
    return e.code();
  } catch (const std::bad_alloc&) {
    setLastError(comm, std::string(function) + ": out of host memory");
    return trncclSystemError;
  } catch (const std::exception& e) {
    setLastError(comm, std::string(function) + ": internal error: " + e.what());
    TRNCCL_WARN("%s: internal error: %s", function, e.what());
    return trncclInternalError;
  }
}

}  // namespace trnccl::api
