#include <catch2/catch.hpp>
#include <string>

#include "algorithms/p2p.h"
#include "algorithms/tuner.h"
#include "base/error.h"

using namespace trnccl;
using algo::Collective;

namespace {
algo::CollectiveArgs call(Collective c, size_t count, int n = 4) {
  algo::CollectiveArgs a;
  a.collective = c;
  a.nranks = n;
  a.count = count;
  return a;
}
std::string chosen(const algo::Tuner& t, Collective c, size_t count) { return t.choose(call(c, count)).name(); }
}  // namespace

TEST_CASE("the tuner picks mesh for small messages and ring for large ones", "[algorithms][tuner]") {
  algo::Tuner t("auto", "TRNCCL_ALGO");
  CHECK(chosen(t, Collective::AllReduce, 2) == "mesh");
  CHECK(chosen(t, Collective::AllReduce, 1 << 20) == "ring");
  CHECK(chosen(t, Collective::Broadcast, 2) == "ring");  // mesh has no broadcast
  CHECK(chosen(t, Collective::AllToAll, 1 << 20) == "mesh");
}

TEST_CASE("TRNCCL_ALGO follows NCCL's syntax", "[algorithms][tuner]") {
  CHECK(chosen(algo::Tuner("ring", "TRNCCL_ALGO"), Collective::AllReduce, 2) == "ring");
  CHECK(chosen(algo::Tuner("^mesh", "TRNCCL_ALGO"), Collective::AllGather, 2) == "ring");
  CHECK(chosen(algo::Tuner("mesh", "TRNCCL_ALGO"), Collective::AllReduce, 1 << 20) == "mesh");
  algo::Tuner perCollective("allreduce:ring;allgather:mesh", "TRNCCL_ALGO");
  CHECK(chosen(perCollective, Collective::AllReduce, 2) == "ring");
  CHECK(chosen(perCollective, Collective::AllGather, 1 << 20) == "mesh");
  CHECK(chosen(perCollective, Collective::ReduceScatter, 2) == "mesh");  // unrestricted: auto
}

TEST_CASE("bad TRNCCL_ALGO values are errors naming the variable", "[algorithms][tuner][errors]") {
  CHECK_THROWS_WITH(algo::Tuner("bogus", "TRNCCL_ALGO"), Catch::Contains("TRNCCL_ALGO") && Catch::Contains("bogus"));
  CHECK_THROWS_WITH(algo::Tuner("allscatter:ring", "config->algorithm"),
                    Catch::Contains("config->algorithm") && Catch::Contains("allscatter"));
  // Forcing an algorithm that cannot run a call says why.
  algo::Tuner ringOnly("alltoall:ring", "TRNCCL_ALGO");
  try {
    ringOnly.choose(call(Collective::AllToAll, 8));
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == trncclInvalidUsage);
    CHECK(std::string(e.what()).find("ring does not implement alltoall") != std::string::npos);
  }
}

TEST_CASE("point-to-point schedules pair sends to self with receives from self", "[algorithms][p2p]") {
  std::vector<algo::P2POp> ops{{true, 1, 16, 0}, {false, 1, 16, 0}, {true, 0, 8, 0}, {false, 0, 8, 0}};
  algo::Schedule s = algo::buildP2P(0, 2, ops);
  REQUIRE(s.phases.size() == 1);
  REQUIRE(s.phases[0].channels.size() == 3);  // send, recv, and one local copy
  const algo::Step& copy = s.phases[0].channels[2].steps[0];
  CHECK(copy.srcs[0].buffer == algo::kFirstUserBuffer + 2);
  CHECK(copy.dst.buffer == algo::kFirstUserBuffer + 3);
  CHECK_THROWS_AS(algo::buildP2P(0, 2, {{true, 0, 8, 0}}), Error);
  CHECK_THROWS_AS(algo::buildP2P(0, 2, {{false, 0, 8, 0}}), Error);
  CHECK_THROWS_WITH(algo::buildP2P(0, 2, {{true, 0, 8, 0}, {false, 0, 4, 0}}), Catch::Contains("does not match"));
}
