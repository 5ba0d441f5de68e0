#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/algorithm_filter.h"
#include "algorithms/network_model.h"
#include "algorithms/p2p.h"
#include "algorithms/registry.h"
#include "algorithms/tuner.h"
#include "base/error.h"
#include "topology/fabric.h"
#include "topology/rank_map.h"
#include "topology/topology.h"

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
      : network(n),
        tuner(algo::AlgorithmFilter(spec, "TRNCCL_ALGO", algo::Tuner::algorithmNames()), network, nullptr),
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

TEST_CASE("on a tie the tuner takes the simplest algorithm, then the first name alphabetically",
          "[algorithms][tuner]") {
  // Every candidate priced alike: the choice is the tie rule's alone.
  FlatNetwork network(4);
  const algo::Tuner tuner(
      algo::AlgorithmFilter("auto", "TRNCCL_ALGO", algo::Tuner::algorithmNames()), network, nullptr,
      [](const algo::Algorithm&, const algo::CollectiveArgs&) {
        algo::Prediction alike;
        alike.seconds = 1.0;
        return alike;
      },
      algo::Pruning::Off);
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::AllToAll, Collective::Broadcast}) {
    const algo::CollectiveArgs args = call(c, 1000);
    const algo::RegisteredAlgorithm* expected = nullptr;
    for (const algo::RegisteredAlgorithm& a : algo::registeredAlgorithms()) {
      if (!a.make()->whyUnsupported(args).empty()) continue;
      if (expected == nullptr || a.simplicity < expected->simplicity ||
          (a.simplicity == expected->simplicity && a.name < expected->name))
        expected = &a;
    }
    REQUIRE(expected != nullptr);
    CAPTURE(algo::collectiveName(c));
    CHECK(tuner.choose(args).name() == expected->name);
  }
  // Today's registrations: ring is the simplest of all.
  CHECK(tuner.choose(call(Collective::AllReduce, 1000)).name() == std::string("ring"));
}

TEST_CASE("the tuner's decision is the same for every size of a power-of-two bucket", "[algorithms][tuner]") {
  // A fresh tuner per size, so each decides at the first size it sees (a
  // shared one would answer every size of the bucket from its cache). The
  // bucket is one where the choice changes at the next power of two: deciding
  // at each call's own size would change inside it.
  const auto fresh = [](size_t count) { return TunerUnderTest("auto", 8).chosen(Collective::AllReduce, count); };
  size_t from = 1;
  while (from < (size_t{1} << 26) && fresh(from) == fresh(2 * from)) from *= 2;
  REQUIRE(fresh(from) != fresh(2 * from));
  for (size_t count = from; count < 2 * from; count += std::max<size_t>(1, from / 16)) {
    CAPTURE(from, count);
    CHECK(fresh(count) == fresh(from));
  }
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

namespace {

// The tuner of a communicator of every NeuronCore of `instances`
// trn1.32xlarge (32 ranks each, in the default order) with TRNCCL_ALGO=spec.
struct Trn1Tuner {
  Trn1Tuner(const std::string& spec, int instances)
      : topology(topo::loadTopology("trn1.32xlarge:" + std::to_string(instances))),
        fabric(topology),
        cores(topo::mapRanks(topology, 32 * instances, "", "test")),
        layout(algo::topologyLayout(topology, cores)),
        network(algo::fabricNetwork(topology, fabric, cores)),
        tuner(algo::AlgorithmFilter(spec, "TRNCCL_ALGO", algo::Tuner::algorithmNames()), *network, &layout) {}
  // `count` as the API takes it: per rank for all-gather and reduce-scatter.
  std::string chosen(Collective c, size_t count, trncclDataType_t type = trncclFloat32) const {
    algo::CollectiveArgs args = call(c, count, static_cast<int>(cores.size()));
    args.type = type;
    args.layout = &layout;
    return tuner.choose(args).name();
  }
  topo::Topology topology;
  topo::Fabric fabric;
  std::vector<topo::CoreLocation> cores;
  algo::RankLayout layout;
  std::unique_ptr<algo::Network> network;
  algo::Tuner tuner;
};

constexpr size_t KiB = size_t{1} << 10, MiB = size_t{1} << 20;

}  // namespace

// Neuron's documented ranges (neuron_profile.h): mesh below 1 MiB, RDH up to
// 56 MiB (on the chips of one instance, its RDH across chips after an on-chip
// stage: chip_rdh), KangaRing above, also where a
// range ends inside a power-of-two bucket (the 32-64 MiB one).
TEST_CASE(
    "TRNCCL_ALGO=neuron plays Neuron's choice within trn1.32xlarge: mesh below 1 MiB, rdh to 56 MiB, "
    "kangaring above",
    "[algorithms][tuner]") {
  const Trn1Tuner t("neuron", 1);
  SECTION("all-reduce: the bytes are count x the type's size") {
    for (size_t bytes : {4 * KiB, 512 * KiB}) CHECK(t.chosen(Collective::AllReduce, bytes / 4) == "mesh");
    for (size_t bytes : {1 * MiB, 8 * MiB, 32 * MiB}) CHECK(t.chosen(Collective::AllReduce, bytes / 4) == "chip_rdh");
    for (size_t bytes : {64 * MiB, 256 * MiB}) CHECK(t.chosen(Collective::AllReduce, bytes / 4) == "kangaring");
    // Either side of 56 MiB, in one power-of-two bucket, in both orders.
    CHECK(t.chosen(Collective::AllReduce, 60 * MiB / 4) == "kangaring");
    CHECK(t.chosen(Collective::AllReduce, 56 * MiB / 4) == "chip_rdh");
    CHECK(Trn1Tuner("neuron", 1).chosen(Collective::AllReduce, 48 * MiB / 4) == "chip_rdh");
    // 256 Ki elements: 1 MiB of float32, 256 KiB of int8.
    CHECK(t.chosen(Collective::AllReduce, 256 * KiB, trncclFloat32) == "chip_rdh");
    CHECK(t.chosen(Collective::AllReduce, 256 * KiB, trncclInt8) == "mesh");
    CHECK(t.chosen(Collective::AllReduce, 8 * MiB, trncclBfloat16) == "chip_rdh");    // 16 MiB
    CHECK(t.chosen(Collective::AllReduce, 32 * MiB, trncclBfloat16) == "kangaring");  // 64 MiB
  }
  SECTION("all-gather and reduce-scatter: the bytes are the whole buffer, count x 32 ranks x the type's size") {
    for (Collective c : {Collective::AllGather, Collective::ReduceScatter}) {
      CAPTURE(algo::collectiveName(c));
      CHECK(t.chosen(c, 4 * KiB / 4) == "mesh");       // 4 KiB a rank: 128 KiB
      CHECK(t.chosen(c, 16 * KiB / 4) == "mesh");      // 16 KiB a rank: 512 KiB
      CHECK(t.chosen(c, 32 * KiB / 4) == "chip_rdh");  // 32 KiB a rank: 1 MiB (an all-reduce of 32 KiB is mesh)
      CHECK(t.chosen(c, 1 * MiB / 4) == "chip_rdh");   // 1 MiB a rank: 32 MiB
      CHECK(t.chosen(c, 2 * MiB / 4) == "kangaring");  // 2 MiB a rank: 64 MiB
    }
  }
}

TEST_CASE("TRNCCL_ALGO=neuron across two trn1.32xlarge plays hierarchical, its middle step by the same ranges",
          "[algorithms][tuner]") {
  const Trn1Tuner t("neuron", 2);
  REQUIRE(t.layout.instances() == 2);
  for (size_t bytes : {4 * KiB, 512 * KiB}) CHECK(t.chosen(Collective::AllReduce, bytes / 4) == "hierarchical_mesh");
  for (size_t bytes : {1 * MiB, 32 * MiB}) CHECK(t.chosen(Collective::AllReduce, bytes / 4) == "hierarchical_rdh");
  for (size_t bytes : {64 * MiB, 256 * MiB}) CHECK(t.chosen(Collective::AllReduce, bytes / 4) == "hierarchical");
}

TEST_CASE("TRNCCL_ALGO=neuron: per collective, never excluded, and the cost model where Neuron has no rule",
          "[algorithms][tuner]") {
  const Trn1Tuner automatic("auto", 1);
  SECTION("allreduce:neuron applies to all-reduce only") {
    const Trn1Tuner t("allreduce:neuron", 1);
    CHECK(t.chosen(Collective::AllReduce, 4 * KiB / 4) == "mesh");
    CHECK(t.chosen(Collective::AllReduce, 64 * MiB / 4) == "kangaring");
    // An all-gather of 2 MiB a rank (64 MiB): kangaring under "neuron"; the
    // cost model's choice here.
    REQUIRE(Trn1Tuner("neuron", 1).chosen(Collective::AllGather, 2 * MiB / 4) == "kangaring");
    const std::string gather = automatic.chosen(Collective::AllGather, 2 * MiB / 4);
    CHECK(gather != "kangaring");
    CHECK(t.chosen(Collective::AllGather, 2 * MiB / 4) == gather);
  }
  SECTION("^neuron is an unknown algorithm, and the refusal lists neuron among the known names") {
    const auto known = algo::Tuner::algorithmNames();
    CHECK_THROWS_WITH(algo::AlgorithmFilter("^neuron", "TRNCCL_ALGO", known),
                      Catch::Contains("TRNCCL_ALGO") && Catch::Contains("unknown algorithm 'neuron'") &&
                          Catch::Contains("(known: auto neuron "));
    CHECK_THROWS_AS(algo::AlgorithmFilter("allreduce:^neuron", "TRNCCL_ALGO", known), Error);
  }
  SECTION("broadcast: Neuron has no rule, the cost model chooses") {
    const Trn1Tuner t("neuron", 1);
    for (size_t count : {size_t{16}, 16 * MiB}) {
      CAPTURE(count);
      std::string chosen;
      REQUIRE_NOTHROW(chosen = t.chosen(Collective::Broadcast, count));
      CHECK(chosen == automatic.chosen(Collective::Broadcast, count));
    }
  }
}
