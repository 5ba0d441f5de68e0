#include "trnccl_error.h"

#include <string>

namespace trnccl::perf {

void check_trnccl(trncclResult_t result, const char* call, trncclComm_t comm) {
  if (result == trncclSuccess) return;
  const char* cause = trncclGetLastError(comm);
  throw TrncclError(std::string(call) + " failed: " + trncclGetErrorString(result) +
                    (cause != nullptr && *cause != '\0' ? std::string(": ") + cause : std::string()));
}

}  // namespace trnccl::perf
