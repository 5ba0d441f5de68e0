// What the backend says when a trnccl call fails: c10d's error wording.
#pragma once

#include <c10/util/Exception.h>

#include <string>

#include "trnccl/trnccl.h"

namespace trnccl_torch {

// What a failed call says. A timeout is worded as gloo words its own
// ("Timed out ..."): c10d's tests recognise a timeout by that.
inline std::string failure(const std::string& what, trncclResult_t result, const char* detail) {
  const std::string text =
      "trnccl: " + what + " failed: " +
      (result == trncclTimeout ? "Timed out (the process group's timeout passed)" : trncclGetErrorString(result));
  return (detail && *detail) ? text + ": " + detail : text;
}

[[noreturn]] inline void throwTrnccl(const char* call, trncclResult_t result, trncclComm_t comm) {
  TORCH_CHECK(false, failure(call, result, trncclGetLastError(comm)));
}

inline void check(const char* call, trncclResult_t result, trncclComm_t comm) {
  if (result != trncclSuccess) throwTrnccl(call, result, comm);
}

}  // namespace trnccl_torch
