// Two emulated hosts on this machine: network namespaces joined by one or
// more veth pairs (links), each link a subnet of its own (10.77.<link>.0/24,
// host h at .h+1), so ranks started in them reach each other only over real
// (virtual) wires, exactly as on two machines with a NIC per link: one link
// can be taken down while the others stay up (rails). Needs root and
// iproute2's `ip`; everything is removed on destruction.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "trnccl/trnccl.h"

namespace trnccl::test {

class TwoHosts {
 public:
  // Throws std::runtime_error naming the failed command.
  explicit TwoHosts(int links = 1);
  ~TwoHosts();
  TwoHosts(const TwoHosts&) = delete;
  TwoHosts& operator=(const TwoHosts&) = delete;

  // Host h's namespace name, and the command prefix that runs a program there.
  const std::string& name(int h) const { return names_[h]; }
  std::vector<std::string> runIn(int h) const { return {"ip", "netns", "exec", names_[h]}; }
  // Host h's end of link `l` (a veth pair); every end's name starts "veth".
  const std::string& link(int h, int l = 0) const { return links_[static_cast<size_t>(l)][static_cast<size_t>(h)]; }
  int links() const { return static_cast<int>(links_.size()); }
  // Moves the calling thread (a forked rank: its process) into host h.
  void enter(int h) const;
  // A unique id whose rendezvous root listens in host 0, on the interface
  // TRNCCL_SOCKET_IFNAME (set by the caller) selects there.
  trncclUniqueId uniqueIdOnHost0() const;

 private:
  void remove();
  std::vector<std::string> names_;
  std::vector<std::array<std::string, 2>> links_;  // per link, per host
};

}  // namespace trnccl::test
