#include "base/error.h"

#include <cstring>

namespace trnccl {

void throwSystemError(const std::string& what, int err) {
  throw Error(trncclSystemError, what + ": " + std::strerror(err));
}

}  // namespace trnccl
