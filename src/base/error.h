// Errors inside trnccl are exceptions carrying a result code; the C API turns
// them back into codes (src/api) and remembers the message for
// trncclGetLastError.
#pragma once

#include <stdexcept>
#include <string>

#include "trnccl/trnccl.h"

namespace trnccl {

class Error : public std::runtime_error {
 public:
  Error(trncclResult_t code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}
  trncclResult_t code() const { return code_; }

 private:
  trncclResult_t code_;
};

[[noreturn]] inline void throwError(trncclResult_t code, std::string message) { throw Error(code, std::move(message)); }

// "argument 'recvbuff' is NULL"
[[noreturn]] inline void throwInvalidArgument(const std::string& argument, const std::string& problem) {
  throw Error(trncclInvalidArgument, "argument '" + argument + "' " + problem);
}

// errno-based failure of a system call, with what was being done.
[[noreturn]] void throwSystemError(const std::string& what, int err);

}  // namespace trnccl
