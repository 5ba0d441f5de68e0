// trnccl-doctor across two emulated hosts (network namespaces joined by a
// veth pair, tests/collectives/two_hosts.h): ranks started by hand in each,
// exchanging through a directory (--rendezvous), reach each other over the
// real addresses TRNCCL_SOCKET_IFNAME selects, and a host moved to another
// subnet is named as unreachable.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "tests/doctor/doctor_run.h"
#include "two_hosts.h"

using namespace trnccl::test;

namespace {

// Rank 0 in host 0 and rank 1 in host 1, started together; rank 0's report,
// and rank 1's exit status through `status1`.
Run acrossHosts(const trnccl::test::TwoHosts& hosts, int* status1) {
  char dir[] = "/tmp/trnccl-doctor-hosts-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  auto rank = [&](int r) {
    return "ip netns exec " + hosts.name(r) +
           " env TRNCCL_SOCKET_IFNAME=veth '" TRNCCL_DOCTOR_PATH "' --timeout-ms 2000 --rendezvous " +
           std::string(dir) + " --rank " + std::to_string(r) + " --nranks 2";
  };
  const std::string statusFile = std::string(dir) + "/status1";
  const Run run0 = run("(" + rank(1) + " >/dev/null 2>&1; echo $? > " + statusFile + ") & " + rank(0) +
                       "; status=$?; wait; exit $status");
  *status1 = std::stoi(run("cat " + statusFile).output);
  std::system(("rm -rf " + std::string(dir)).c_str());
  return run0;
}

}  // namespace

TEST_CASE("doctor across two hosts: every rank reaches the other over its veth address", "[doctor][two-hosts]") {
  trnccl::test::TwoHosts hosts;
  int status1 = -1;
  const Run r = acrossHosts(hosts, &status1);
  checkAllOk(r, 2);
  CHECK(status1 == 0);
  CHECK(lineOf(r.output, "interface").starts_with("ok: TRNCCL_SOCKET_IFNAME='veth' selects veth"));
  CHECK(lineOf(r.output, "interface").find("(10.77.0.1:") != std::string::npos);
  CHECK(lineOf(r.output, "interface").find("reached every rank over it") != std::string::npos);
}

TEST_CASE("doctor across two hosts: a host on another subnet is unreachable, named with the fix",
          "[doctor][two-hosts]") {
  trnccl::test::TwoHosts hosts;
  const std::string veth1 = "vethB" + hosts.name(1).substr(std::string("trncclB").size());
  REQUIRE(run("ip -n " + hosts.name(1) + " addr flush dev " + veth1 + " && ip -n " + hosts.name(1) +
              " addr add 10.78.0.2/24 dev " + veth1)
              .status == 0);
  int status1 = -1;
  const Run r = acrossHosts(hosts, &status1);
  CHECK(status1 == 1);
  checkProblem(r, "interface", "rank 0: TRNCCL_SOCKET_IFNAME='veth' selects veth",
               "route the hosts' addresses to each other");
  CHECK(r.output.find("rank 1 (10.78.0.2:") != std::string::npos);  // rank 0 names whom it cannot reach
  CHECK(r.output.find("rank 1: TRNCCL_SOCKET_IFNAME='veth' selects veth") != std::string::npos);
  CHECK(r.output.find("rank 0 (10.77.0.1:") != std::string::npos);  // and rank 1 likewise
}
