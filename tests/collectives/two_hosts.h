// Two emulated hosts on this machine: network namespaces joined by a veth
// pair, each end with its own address, so ranks started in them reach each
// other only over a real (virtual) wire, exactly as on two machines. Needs
// root and iproute2's `ip`; everything is removed on destruction.
#pragma once

#include <string>
#include <vector>

#include "trnccl/trnccl.h"

namespace trnccl::test {

class TwoHosts {
 public:
  TwoHosts();  // throws std::runtime_error naming the failed command
  ~TwoHosts();
  TwoHosts(const TwoHosts&) = delete;
  TwoHosts& operator=(const TwoHosts&) = delete;

  // Host h's namespace name, and the command prefix that runs a program there.
  const std::string& name(int h) const { return names_[h]; }
  std::vector<std::string> runIn(int h) const { return {"ip", "netns", "exec", names_[h]}; }
  // A unique id whose rendezvous root listens in host 0, on the interface
  // TRNCCL_SOCKET_IFNAME (set by the caller) selects there.
  trncclUniqueId uniqueIdOnHost0() const;

 private:
  void remove();
  std::vector<std::string> names_;
};

}  // namespace trnccl::test
