#include <catch2/catch.hpp>
#include <string>

#include "algorithms/p2p.h"
#include "algorithms/algorithm_filter.h"
#include "algorithms/tuner.h"
#include "base/error.h"

using namespace trnccl;
using algo::Collective;

namespace {

// A host whose ranks each have one port out and one in, every message one
// hop through the sender's and the receiver's ports.
class FlatNetwork : public algo::Network {
 public:
  explicit FlatNetwork(int n) : names_(2 * n, "port") {}
  int linkCount() const override { return static_cast<int>(names_.size()); }
  double linkBytesPerSec(int) const override { return 10e9; }
  const std::string& linkName(int l) const override { return names_.at(l); }
  algo::Path path(int from, int to) const override { return {{2 * from, 2 * to + 1}, 2e-6}; }
  double reduceBytesPerSec() const override { return 50e9; }

 private:
  std::vector<std::string> names_;
};

algo::CollectiveArgs call(Collective c, size_t count, int n = 4) {
  algo::CollectiveArgs a;
  a.collective = c;
  a.nranks = n;
  a.count = count;
  return a;
}

struct TunerUnderTest {
  explicit TunerUnderTest(const std::string& spec, int n = 4)
      : network(n), tuner(algo::AlgorithmFilter(spec, "TRNCCL_ALGO", algo::Tuner::algorithmNames()), network, nullptr),
        n(n) {}
  std::string chosen(Collective c, size_t count) const { return tuner.choose(call(c, count, n)).name(); }
  FlatNetwork network;
  algo::Tuner tuner;
  int n;
};

}  // namespace

TEST_CASE("the tuner picks by predicted time: one step for tiny messages, few latencies for large ones",
          "[algorithms][tuner]") {
  TunerUnderTest t("auto", 8);
  // 8 bytes: one exchange with everyone beats 2(n-1) ring steps or log2(n) RDH levels.
  CHECK(t.chosen(Collective::AllReduce, 2) == "mesh");
  // 64 MiB: every candidate moves 2(n-1)/n of the data through each port, but
  // mesh moves (n-1) times it; ring pays 2(n-1) latencies where RDH pays 2 log2(n).
  const std::string large = t.chosen(Collective::AllReduce, 16 << 20);
  CHECK(large != "mesh");
  CHECK(large != "ring");
  CHECK(t.chosen(Collective::Broadcast, 2) == "ring");  // the only one with broadcast
  CHECK(t.chosen(Collective::AllToAll, 1 << 20) == "mesh");
  // Hierarchical needs instances, which a flat host does not have.
  CHECK(t.tuner.describe(Collective::AllReduce, trncclFloat32, 8).find("hierarchical") == std::string::npos);
}

TEST_CASE("the tuner's decision is the same for every size of a power-of-two bucket", "[algorithms][tuner]") {
  TunerUnderTest t("auto", 8);
  for (size_t count = 1024; count < 2048; count += 97)
    CHECK(t.chosen(Collective::AllReduce, count) == t.chosen(Collective::AllReduce, 1024));
}

TEST_CASE("TRNCCL_ALGO follows NCCL's syntax", "[algorithms][tuner]") {
  CHECK(TunerUnderTest("ring").chosen(Collective::AllReduce, 2) == "ring");
  CHECK(TunerUnderTest("^mesh").chosen(Collective::AllGather, 2) != "mesh");
  CHECK(TunerUnderTest("mesh").chosen(Collective::AllReduce, 1 << 20) == "mesh");
  CHECK(TunerUnderTest("torus2d,rdh").chosen(Collective::AllReduce, 1 << 20) != "ring");
  TunerUnderTest perCollective("allreduce:ring;allgather:torus2d");
  CHECK(perCollective.chosen(Collective::AllReduce, 2) == "ring");
  CHECK(perCollective.chosen(Collective::AllGather, 1 << 20) == "torus2d");
  CHECK(perCollective.chosen(Collective::ReduceScatter, 2) == "mesh");  // unrestricted: auto
}

TEST_CASE("bad TRNCCL_ALGO values are errors naming the variable", "[algorithms][tuner][errors]") {
  const auto known = algo::Tuner::algorithmNames();
  CHECK_THROWS_WITH(algo::AlgorithmFilter("bogus", "TRNCCL_ALGO", known),
                    Catch::Contains("TRNCCL_ALGO") && Catch::Contains("bogus"));
  CHECK_THROWS_WITH(algo::AlgorithmFilter("allscatter:ring", "config->algorithm", known),
                    Catch::Contains("config->algorithm") && Catch::Contains("allscatter"));
  // Forcing an algorithm that cannot run a call says why.
  TunerUnderTest ringOnly("alltoall:ring");
  try {
    ringOnly.chosen(Collective::AllToAll, 8);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == trncclInvalidUsage);
    CHECK(std::string(e.what()).find("ring does not implement alltoall") != std::string::npos);
  }
  TunerUnderTest hierarchicalOnly("hierarchical");
  CHECK_THROWS_WITH(hierarchicalOnly.chosen(Collective::AllReduce, 1024), Catch::Contains("instance"));
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
