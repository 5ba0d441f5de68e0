#include "tools/trnccl-doctor/reachability.h"

#include <thread>

#include "base/env.h"
#include "base/error.h"
#include "base/rank_list.h"

namespace trnccl::doctor {
namespace {

constexpr uint32_t kGreeting = 0x44525254;  // "TRRD"

std::string selection() {
  const auto spec = env::get("TRNCCL_SOCKET_IFNAME");
  return spec ? "TRNCCL_SOCKET_IFNAME='" + *spec + "'" : "TRNCCL_SOCKET_IFNAME unset (loopback)";
}

// Accepts connections until `expected` arrived or the deadline passed.
void acceptAll(net::Socket& listener, int expected, const net::Deadline& deadline) {
  for (int arrived = 0; arrived < expected; ++arrived) {
    try {
      net::Socket socket = listener.accept(deadline);
      uint32_t greeting[2];
      socket.recvAll(greeting, sizeof greeting, deadline);
    } catch (const Error&) {
      return;  // the connecting rank reports what went wrong
    }
  }
}

}  // namespace

Reachability::Reachability() {
  try {
    interface_ = net::selectInterface();
    listener_ = net::Socket::listen(interface_->address);
  } catch (const Error& e) {
    failure_ = e.what();
    interface_.reset();
  }
}

std::string Reachability::address() const { return interface_ ? listener_.localAddress().toString() : ""; }

CheckResult Reachability::check(const std::vector<Identity>& ranks, int self, std::chrono::milliseconds timeout) {
  const std::string fixInterface =
      "set TRNCCL_SOCKET_IFNAME to an interface every host has and that routes between them (ip -br addr lists "
      "them; NCCL syntax: =eth0 exact, eth prefix, ^docker excluded)";
  if (!interface_) return problem("interface", failure_, fixInterface);

  const net::Deadline deadline(timeout);
  std::thread acceptor(acceptAll, std::ref(listener_), static_cast<int>(ranks.size()), std::cref(deadline));
  std::vector<int> withoutInterface;
  std::string unreachable;
  for (size_t peer = 0; peer < ranks.size(); ++peer) {
    if (ranks[peer].address.empty()) {
      withoutInterface.push_back(static_cast<int>(peer));
      continue;
    }
    try {
      const auto address = net::SocketAddress::parse(ranks[peer].address);
      net::Socket socket = net::Socket::connect(address, net::Deadline(timeout), "rank " + std::to_string(peer),
                                                net::Socket::WhenRefused::Fail);
      const uint32_t greeting[2] = {kGreeting, static_cast<uint32_t>(self)};
      socket.sendAll(greeting, sizeof greeting, deadline);
    } catch (const Error& e) {
      unreachable += (unreachable.empty() ? "" : "; ") + std::string(e.what());
    }
  }
  acceptor.join();

  const std::string where = selection() + " selects " + interface_->name + " (" + address() + ")";
  if (!unreachable.empty())
    return problem("interface", where + ", but: " + unreachable,
                   "route the hosts' addresses to each other and open the ports between them (firewall, security "
                   "group), or " +
                       fixInterface);
  const std::string others =
      withoutInterface.empty() ? "" : " (" + describeRanks(withoutInterface) + " had no interface to reach)";
  return ok("interface",
            where + "; reached " + (ranks.size() == 1 ? std::string("itself") : "every rank") + " over it" + others);
}

}  // namespace trnccl::doctor
