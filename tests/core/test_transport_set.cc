// The transport set: which transport each peer gets (instance-local within
// an instance, the network transport between them), built for real with
// ranks as threads; and the choice of the network transport.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "base/error.h"
#include "core/transport_set.h"
#include "tests/transports/check.h"
#include "tests/transports/launch.h"

using namespace trnccl;
using namespace trnccl::core;
using namespace trnccl::test;

namespace {

// Per rank, per peer: the name of the transport that carries its messages
// ("-" for the rank itself); built with 4 ranks as threads.
std::vector<std::vector<std::string>> transportNamesByPeer(const std::vector<int>& instanceOf,
                                                           const transport::TransportEntry& network) {
  const int nranks = static_cast<int>(instanceOf.size());
  std::vector<std::vector<std::string>> names(nranks);
  const std::string jobKey = uniqueJobKey("transport-set");
  requireAllOk(launch(Launch::Threads, nranks, [&](int rank, TestOutOfBand& oob) {
    const TransportSet set(optionsFor(oob, jobKey), instanceOf, instanceTransport(), network);
    for (transport::Transport* t : set.byPeer()) names[rank].push_back(t ? t->name() : "-");
  }));
  return names;
}

}  // namespace

TEST_CASE("transport set: peers of this instance share memory, the others get the network transport",
          "[transport-set]") {
  const auto names = transportNamesByPeer({0, 1, 0, 1}, transport::transportNamed("tcp"));
  CHECK(names[0] == std::vector<std::string>{"-", "tcp", "shm", "tcp"});
  CHECK(names[1] == std::vector<std::string>{"tcp", "-", "tcp", "shm"});
  CHECK(names[2] == std::vector<std::string>{"shm", "tcp", "-", "tcp"});
  CHECK(names[3] == std::vector<std::string>{"tcp", "shm", "tcp", "-"});
}

TEST_CASE("transport set: with the instance-local transport as the network one every peer shares memory",
          "[transport-set]") {
  const auto names = transportNamesByPeer({0, 0, 1}, instanceTransport());
  CHECK(names[0] == std::vector<std::string>{"-", "shm", "shm"});
  CHECK(names[2] == std::vector<std::string>{"shm", "shm", "-"});
}

TEST_CASE("transport set: one rank alone has no transports", "[transport-set]") {
  const std::string jobKey = uniqueJobKey("transport-set-alone");
  std::string description;
  size_t transports = 99;
  requireAllOk(launch(Launch::Threads, 1, [&](int, TestOutOfBand& oob) {
    const TransportSet set(optionsFor(oob, jobKey), {}, instanceTransport(), transport::transportNamed("tcp"));
    description = set.description();
    transports = set.all().size();
  }));
  CHECK(description == "none");
  CHECK(transports == 0);
}

TEST_CASE("transport set: auto prefers ofi between instances, and a named transport is taken as it is",
          "[transport-set]") {
  CHECK(std::string(networkTransport("auto", "TRNCCL_TRANSPORT", 2).name) == "ofi");
  CHECK(std::string(networkTransport("tcp", "TRNCCL_TRANSPORT", 2).name) == "tcp");
  // Instances emulated on one host may share memory.
  CHECK(&networkTransport("shm", "TRNCCL_TRANSPORT", 1) == &instanceTransport());
  CHECK(std::string(instanceTransport().name) == "shm");
}

TEST_CASE("transport set: shared memory between hosts is refused, naming the setting and the hosts",
          "[transport-set]") {
  try {
    networkTransport("shm", "config->transport", 3);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == trncclInvalidUsage);
    CHECK(std::string(e.what()) == "config->transport=shm, but the ranks run on 3 hosts: use ofi or tcp (or auto)");
  }
}
