// libfabric failures as trnccl errors.
#pragma once

#include <string>

#include "base/error.h"

namespace trnccl::transport::ofi {

// `rc` is what a libfabric call returned (a negative FI_E* code):
// Error(SystemError) "what: <fi_strerror> (FI error N)".
[[noreturn]] void throwFiError(const std::string& what, int rc);

// A failed completion (fi_cq_readerr) of an operation with a peer.
struct CompletionFailure {
  std::string operation;        // "receive from", "send to"
  int rank = -1;                // this rank
  int peer = -1;                // the peer's rank
  std::string peerAddress;      // fi_av_straddr of the peer's endpoint
  int err = 0;                  // the entry's err (a positive FI_E* code)
  std::string providerMessage;  // fi_cq_strerror of the entry
};

// RemoteError when the peer or the network is to blame (a truncated message,
// a connection that failed, an unreachable or unresponsive peer), SystemError
// for local failures (resources, invalid use of the provider). The message
// names both ranks, the peer's address and what the provider said.
Error completionError(const CompletionFailure& failure);

}  // namespace trnccl::transport::ofi
