// Rail failover and failback of the TCP transport, for real: two ranks in two
// emulated hosts (network namespaces) joined by two links, one connection of
// the pair on each (TRNCCL_SOCKET_IFNAME=veth selects both). One link goes
// down in the middle of a large exchange; every message must still arrive
// intact, the rail must show as down, and once the link is back the rail
// must carry traffic again. File descriptors and the transport's heap must
// not grow across it. Needs root and iproute2's `ip`, like the netem tests.
#include <catch2/catch.hpp>
#include <string>

#include "tests/collectives/two_hosts.h"
#include "tests/support/scoped_env.h"
#include "tests/transports/check.h"
#include "tests/transports/launch.h"
#include "tests/transports/rail_exchange.h"
#include "transports/tcp/tcp_transport.h"

using namespace trnccl;
using namespace trnccl::test;
using transport::Transport;

TEST_CASE(
    "tcp rails: a link that goes down mid-transfer fails over with every byte right, and once back carries "
    "traffic again, with no descriptors or heap left behind",
    "[tcp][rails]") {
  TwoHosts hosts(2);
  ScopedEnv ifname("TRNCCL_SOCKET_IFNAME", "veth");
  ScopedEnv sockets("TRNCCL_TCP_SOCKETS_PER_PEER", "2");
  ScopedEnv stall("TRNCCL_TCP_RAIL_STALL_MS", "300");
  const std::string jobKey = uniqueJobKey("tcp-rails");
  requireAllOk(launch(Launch::Processes, 2, [&](int rank, TestOutOfBand& oob) {
    hosts.enter(rank);
    std::unique_ptr<Transport> t = transport::createTcpTransport(optionsFor(oob, jobKey));
    failOverAndBack(hosts, rank, oob, *t, 1);
  }));
}
