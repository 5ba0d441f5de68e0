#pragma once

#include <stdexcept>

#include "trnccl/trnccl.h"

namespace trnccl::perf {

// A trnccl call that failed, with the library's own words for why.
class TrncclError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws TrncclError naming `call` unless result is trncclSuccess.
void check_trnccl(trncclResult_t result, const char* call, trncclComm_t comm);

}  // namespace trnccl::perf
