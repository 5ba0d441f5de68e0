#pragma once

#include <stdexcept>

namespace trnccl::cli {

// A bad command line: each tool's main prints the message with its usage and
// exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace trnccl::cli
