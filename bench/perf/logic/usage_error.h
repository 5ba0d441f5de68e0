#pragma once

#include <stdexcept>

namespace trnccl::perf {

// A bad command line: main prints the message and the usage text, then exits
// with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace trnccl::perf
