// Ranks on two emulated hosts (network namespaces joined by a veth pair):
// the bootstrap, and the network transport between the hosts, cross two real
// addresses chosen by TRNCCL_SOCKET_IFNAME, while ranks of one host share
// memory; every collective is checked against the reference.
#include <catch2/catch.hpp>

#include "checks.h"
#include "launcher.h"
#include "tests/support/scoped_env.h"
#include "transports/factory.h"
#include "two_hosts.h"
#include "two_instances.h"

using namespace trnccl::test;

namespace {

// Ranks 0, 1 on host 0 and 2, 3 on host 1.
void checkAcrossHosts() {
  TwoHosts hosts;
  ScopedEnv interface("TRNCCL_SOCKET_IFNAME", "veth");
  const trncclUniqueId id = hosts.uniqueIdOnHost0();
  WorkerPlacement placement;
  placement.id = &id;
  placement.prefixOf = {hosts.runIn(0), hosts.runIn(0), hosts.runIn(1), hosts.runIn(1)};
  const WorkerJob job = runWorkers(TRNCCL_COLL_WORKER, 4,
                                   {"--mode", "matrix", "--colls", "allreduce,allgather,reducescatter,broadcast",
                                    "--counts", "1,37,70000", "--large-types", "float"},
                                   std::chrono::seconds(120), placement);
  INFO(describeJob(job));
  CHECK(exitedWith(job, {0}));
}

}  // namespace

TEST_CASE("two hosts: collectives over each network transport between network namespaces", "[two-hosts]") {
  const std::string network =
      GENERATE(from_range(trnccl::transport::transportNames(trnccl::transport::Reach::Network)));
  CAPTURE(network);
  ScopedNetworkTransport transport(network);
  checkAcrossHosts();
}
