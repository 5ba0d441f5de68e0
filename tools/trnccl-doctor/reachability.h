// Interface reachability: every rank listens on the interface
// TRNCCL_SOCKET_IFNAME selects (as the bootstrap and the tcp transport do)
// and connects to every rank, itself included, over it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "base/socket.h"
#include "tools/trnccl-doctor/check.h"
#include "tools/trnccl-doctor/identity.h"

namespace trnccl::doctor {

class Reachability {
 public:
  // Selects the interface and listens on it; a failure is kept for check().
  Reachability();

  // "10.0.0.1:40123", or "" when no interface could be used.
  std::string address() const;

  // Connects to every rank of `ranks` (rank `self` is this one) while
  // accepting theirs, each bounded by `timeout`.
  CheckResult check(const std::vector<Identity>& ranks, int self, std::chrono::milliseconds timeout);

 private:
  std::optional<net::Interface> interface_;
  net::Socket listener_;
  std::string failure_;
};

}  // namespace trnccl::doctor
