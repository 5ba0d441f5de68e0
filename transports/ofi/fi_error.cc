#include "transports/ofi/fi_error.h"

#include <rdma/fi_errno.h>

namespace trnccl::transport::ofi {
namespace {

bool isLocalFailure(int err) {
  switch (err) {
    case FI_ENOMEM:
    case FI_EINVAL:
    case FI_ENOSYS:
    case FI_EOPNOTSUPP:
    case FI_EOPBADSTATE:
    case FI_EBADFLAGS:
    case FI_ENOKEY:
    case FI_EMSGSIZE:
    case FI_EFAULT:
    case FI_EPERM:
    case FI_EACCES:
      return true;
    default:
      return false;
  }
}

}  // namespace

void throwFiError(const std::string& what, int rc) {
  throwError(trncclSystemError, what + ": " + fi_strerror(-rc) + " (libfabric error " + std::to_string(-rc) + ")");
}

Error completionError(const CompletionFailure& f) {
  std::string message = "rank " + std::to_string(f.rank) + ": " + f.operation + " rank " + std::to_string(f.peer) +
                        " (address " + f.peerAddress + ") failed: " + fi_strerror(f.err) + " (libfabric error " +
                        std::to_string(f.err) + ")";
  if (!f.providerMessage.empty()) message += "; the provider says: " + f.providerMessage;
  return Error(isLocalFailure(f.err) ? trncclSystemError : trncclRemoteError, message);
}

}  // namespace trnccl::transport::ofi
