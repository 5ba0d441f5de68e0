// Where a communicator's ranks run (core::Placement from core::resolveConfig):
// the grids and instances the algorithms see, the errors for placements that
// cannot be, the tuner's choices over the placement's network, and the paths
// the link emulation paces. References come from the topology facts written
// out here: trn1.32xlarge is a 4 x 4 torus of chips numbered row-major, two
// NeuronCores per chip (global core = 2 x chip + core), NeuronLinks of
// 96 GB/s and 1.5 us per hop.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "algorithms/tuner.h"
#include "base/error.h"
#include "core/config.h"
#include "core/placement.h"
#include "tests/support/scoped_env.h"
#include "topology/topology.h"

using namespace trnccl;
using trnccl::test::ScopedEnv;

namespace {

// The 4x4 snake the default and chip orders follow: row 0 left to right,
// row 1 right to left, ...
const std::vector<int> kSnake4x4{0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12};

int chipX(int chip) { return chip % 4; }
int chipY(int chip) { return chip / 4; }

// NeuronLink hops between two chips of the 4 x 4 torus (each dimension wraps).
int torusHops(int a, int b) {
  const int dx = std::abs(chipX(a) - chipX(b)), dy = std::abs(chipY(a) - chipY(b));
  return std::min(dx, 4 - dx) + std::min(dy, 4 - dy);
}

core::Config placed(const char* topology, const char* rankOrder, bool emulateLinks = false) {
  core::Config config;
  config.topology = topology;
  config.rankOrder = rankOrder;
  config.emulateLinks = emulateLinks;
  return config;
}

std::vector<int> allRanks(int n) {
  std::vector<int> ranks(static_cast<size_t>(n));
  std::iota(ranks.begin(), ranks.end(), 0);
  return ranks;
}

// What the placement's tuner runs for a float32 all-reduce of `bytes`.
std::string chosenAllReduce(const core::Placement& p, int nranks, size_t bytes) {
  const algo::Tuner tuner(algo::AlgorithmFilter("auto", "TRNCCL_ALGO", algo::Tuner::algorithmNames()), p.network(),
                          &p.layout());
  algo::CollectiveArgs args;
  args.nranks = nranks;
  args.count = bytes / 4;
  args.layout = &p.layout();
  return tuner.choose(args).name();
}

// The cost model's time for `algorithm` running that all-reduce.
double predictedAllReduce(const core::Placement& p, int nranks, size_t bytes, const std::string& algorithm) {
  const algo::Tuner tuner(algo::AlgorithmFilter(algorithm, "TRNCCL_ALGO", algo::Tuner::algorithmNames()), p.network(),
                          &p.layout());
  algo::CollectiveArgs args;
  args.nranks = nranks;
  args.count = bytes / 4;
  args.layout = &p.layout();
  return tuner.predict(tuner.choose(args), args).seconds;
}

// The placement must be refused with trncclInvalidArgument, naming `what`.
void requireRefused(const core::Config& config, int nranks, const std::string& what) {
  try {
    core::Placement p(config, nranks, nullptr);
    FAIL("placing " << nranks << " ranks on '" << config.topology << "' with order '" << config.rankOrder
                    << "' was accepted");
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == trncclInvalidArgument);
    CHECK(std::string(e.what()).find(what) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("placement: trn1.32xlarge, default order, 32 ranks: two per chip in snake order, an 8 x 4 grid",
          "[core][placement]") {
  const core::Placement p(placed("trn1.32xlarge", ""), 32, nullptr);
  const std::vector<int> cores = p.globalCores();
  REQUIRE(cores.size() == 32);
  for (int r = 0; r < 32; ++r) CHECK(cores[r] == 2 * kSnake4x4[r / 2] + r % 2);
  const algo::RankLayout& layout = p.layout();
  CHECK(layout.instanceOf.empty());
  REQUIRE(layout.gridWidth == 8);
  REQUIRE(layout.gridHeight == 4);
  // Column x is NeuronCore x % 2 of the chips in torus column x / 2; row y is torus row y.
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 8; ++x) {
      const int rank = layout.grid[y * 8 + x], chip = cores[rank] / 2;
      INFO("grid (" << x << ", " << y << ") holds rank " << rank << " on chip " << chip);
      CHECK(chipX(chip) == x / 2);
      CHECK(chipY(chip) == y);
      CHECK(cores[rank] % 2 == x % 2);
    }
  CHECK(p.describe(3).find("grid 8 x 4") != std::string::npos);
}

TEST_CASE("placement: chip order on 16 ranks: a 4 x 4 grid whose rows and columns are rings of linked chips",
          "[core][placement]") {
  const core::Placement p(placed("trn1.32xlarge", "chip"), 16, nullptr);
  const std::vector<int> cores = p.globalCores();
  for (int r = 0; r < 16; ++r) CHECK(cores[r] == 2 * kSnake4x4[r]);
  const algo::RankLayout& layout = p.layout();
  REQUIRE(layout.gridWidth == 4);
  REQUIRE(layout.gridHeight == 4);
  auto chipAt = [&](int x, int y) { return cores[layout.grid[y * 4 + x]] / 2; };
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) {
      INFO("grid (" << x << ", " << y << ")");
      CHECK(chipAt(x, y) == 4 * y + x);
      // The next rank along the row and along the column (wrapping) is one NeuronLink away.
      CHECK(torusHops(chipAt(x, y), chipAt((x + 1) % 4, y)) == 1);
      CHECK(torusHops(chipAt(x, y), chipAt(x, (y + 1) % 4)) == 1);
    }
}

TEST_CASE("placement: 8 ranks two per chip on 4 chips of a row form an 8 x 1 grid", "[core][placement]") {
  const core::Placement p(placed("trn1.32xlarge", ""), 8, nullptr);
  CHECK(p.layout().gridWidth == 8);
  CHECK(p.layout().gridHeight == 1);
  // Chips 0-3 in order, NeuronCores 0 and 1 of each: already in grid order.
  CHECK(p.layout().grid == allRanks(8));
}

TEST_CASE("placement: a split keeps its ranks' NeuronCores and sees the sub-grid they form", "[core][placement]") {
  const core::Config config = placed("trn1.32xlarge", "chip");
  SECTION("torus column 0 (chips 0, 4, 8, 12): a 1 x 4 grid") {
    const std::vector<int> cores = {0, 8, 16, 24};
    const core::Placement p(config, 4, &cores);
    CHECK(p.globalCores() == cores);
    CHECK(p.layout().gridWidth == 1);
    CHECK(p.layout().gridHeight == 4);
    CHECK(p.layout().grid == allRanks(4));
  }
  SECTION("torus row 1 in snake order (chips 7, 6, 5, 4): a 4 x 1 grid, ranks right to left") {
    const std::vector<int> cores = {14, 12, 10, 8};
    const core::Placement p(config, 4, &cores);
    CHECK(p.layout().gridWidth == 4);
    CHECK(p.layout().gridHeight == 1);
    CHECK(p.layout().grid == std::vector<int>{3, 2, 1, 0});
  }
  SECTION("chips 0, 6, 10: no grid") {
    const std::vector<int> cores = {0, 12, 20};
    const core::Placement p(config, 3, &cores);
    CHECK_FALSE(p.layout().hasGrid());
  }
}

TEST_CASE("placement: trn1.2xlarge:4 with 8 ranks puts two ranks on each instance", "[core][placement]") {
  const core::Placement p(placed("trn1.2xlarge:4", ""), 8, nullptr);
  CHECK(p.layout().instanceOf == std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3});
  CHECK(p.layout().instances() == 4);
  CHECK_FALSE(p.layout().hasGrid());  // grids lie within one instance
  CHECK(p.globalCores() == allRanks(8));
}

TEST_CASE("placement: impossible placements are errors naming TRNCCL_TOPO or TRNCCL_RANK_ORDER",
          "[core][placement][errors]") {
  SECTION("more ranks than NeuronCores, with the instance count that would fit") {
    requireRefused(placed("trn1.2xlarge", ""), 3, "TRNCCL_RANK_ORDER");
    requireRefused(placed("trn1.2xlarge", ""), 3, "trn1.2xlarge:2");
  }
  SECTION("more ranks than chips in chip order") {
    requireRefused(placed("trn1.32xlarge", "chip"), 17, "TRNCCL_RANK_ORDER");
  }
  SECTION("a malformed order") { requireRefused(placed("trn1.32xlarge", "first"), 2, "TRNCCL_RANK_ORDER"); }
  SECTION("a NeuronCore listed twice") { requireRefused(placed("trn1.32xlarge", "3,3"), 2, "TRNCCL_RANK_ORDER"); }
  SECTION("a NeuronCore past the machine") { requireRefused(placed("trn1.32xlarge", "0,32"), 2, "TRNCCL_RANK_ORDER"); }
  SECTION("a list of the wrong length") { requireRefused(placed("trn1.32xlarge", "0,1,2"), 2, "TRNCCL_RANK_ORDER"); }
  SECTION("TRNCCL_TOPO naming no shipped topology") {
    ScopedEnv topology("TRNCCL_TOPO", "trn9.bogus");
    const core::Config config = core::resolveConfig(nullptr);
    requireRefused(config, 2, "TRNCCL_TOPO");
    requireRefused(config, 2, "trn1.32xlarge");  // the shipped names are listed
  }
  SECTION("TRNCCL_RANK_ORDER from the environment") {
    ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge"), order("TRNCCL_RANK_ORDER", "0,x");
    requireRefused(core::resolveConfig(nullptr), 2, "TRNCCL_RANK_ORDER");
  }
  SECTION("config->topology, which wins over TRNCCL_TOPO") {
    ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge");
    trncclConfig_t user = TRNCCL_CONFIG_INITIALIZER;
    user.topology = "/nonexistent/trn1.json";
    requireRefused(core::resolveConfig(&user), 2, "config->topology");
  }
}

TEST_CASE("placement: TRNCCL_EMULATE_LINKS and TRNCCL_EMULATE_SCALE are read, and checked",
          "[core][placement][config]") {
  ScopedEnv links("TRNCCL_EMULATE_LINKS", "1"), scale("TRNCCL_EMULATE_SCALE", "10");
  const core::Config config = core::resolveConfig(nullptr);
  CHECK(config.emulateLinks);
  CHECK(config.emulateScale == 10);
  ScopedEnv zero("TRNCCL_EMULATE_SCALE", "0");
  CHECK_THROWS_WITH(core::resolveConfig(nullptr), Catch::Contains("TRNCCL_EMULATE_SCALE"));
}

TEST_CASE("placement: the tuner over the modelled links picks torus2d for bandwidth, one-round algorithms for latency",
          "[core][placement][tuner]") {
  // Emulated links: the network is the topology's alone (not this host's memory).
  SECTION("16 ranks, one per trn1.32xlarge chip") {
    const core::Placement p(placed("trn1.32xlarge", "chip", true), 16, nullptr);
    // 64 MiB: the 4 x 4 torus keeps all four links of every chip busy; a ring uses two.
    CHECK(chosenAllReduce(p, 16, 64 << 20) == "torus2d");
    CHECK(predictedAllReduce(p, 16, 64 << 20, "torus2d") < predictedAllReduce(p, 16, 64 << 20, "ring") / 2);
    const std::string tiny = chosenAllReduce(p, 16, 8);
    CHECK((tiny == "mesh" || tiny == "rdh"));
  }
  SECTION("64 ranks on two trn1.32xlarge instances") {
    const core::Placement p(placed("trn1.32xlarge:2", "", true), 64, nullptr);
    // 64 MiB: only 1/32 of it per rank crosses EFA.
    CHECK(chosenAllReduce(p, 64, 64 << 20).rfind("hierarchical", 0) == 0);
    const std::string tiny = chosenAllReduce(p, 64, 8);
    CHECK((tiny == "mesh" || tiny == "rdh"));
  }
  SECTION("without emulation the bytes also cross this host's memory, which is slower than the torus") {
    const core::Placement modelled(placed("trn1.32xlarge", "chip", true), 16, nullptr);
    const core::Placement hosted(placed("trn1.32xlarge", "chip", false), 16, nullptr);
    CHECK(predictedAllReduce(hosted, 16, 64 << 20, "torus2d") > predictedAllReduce(modelled, 16, 64 << 20, "torus2d"));
  }
  SECTION("through the host, one thread per rank does every channel's work, at its share of a core") {
    // The main job's shape: 8 ranks of trn1.32xlarge on this 2-core host.
    const core::Placement ownCore(placed("trn1.32xlarge", ""), 8, nullptr, {}, 1.0);
    const core::Placement quarterCore(placed("trn1.32xlarge", ""), 8, nullptr, {}, 0.25);
    const size_t mid = 1 << 20;
    // A quarter of a core moves and reduces the bytes at a quarter of the speed.
    CHECK(predictedAllReduce(quarterCore, 8, mid, "ring") > 3 * predictedAllReduce(ownCore, 8, mid, "ring"));
    // bidir_ring's second channel is a second engine on the torus, not on the host.
    CHECK(predictedAllReduce(quarterCore, 8, mid, "bidir_ring") >= predictedAllReduce(quarterCore, 8, mid, "ring"));
    const core::Placement modelled(placed("trn1.32xlarge", "", true), 8, nullptr);
    CHECK(predictedAllReduce(modelled, 8, mid, "bidir_ring") < predictedAllReduce(modelled, 8, mid, "ring"));
    CHECK(chosenAllReduce(quarterCore, 8, mid) != "bidir_ring");
  }
}

TEST_CASE("placement: emulation paths: one per other rank, as long as the route, none to itself",
          "[core][placement][emulation]") {
  // The collective engine's DMA links: every route starts at its chip's DMA
  // link, which issues the message, and every chip on the way forwards it
  // through its own.
  const topo::EngineModel dma = topo::loadTopology("trn1.32xlarge").engine;
  const auto isDma = [&](const transport::LinkEmulation& e, int link) {
    return e.linkBytesPerSec.at(link) == dma.dmaBytesPerSec;
  };
  SECTION("chip order on trn1.32xlarge: NeuronLink hops") {
    const core::Placement p(placed("trn1.32xlarge", "chip"), 16, nullptr);
    for (int rank = 0; rank < 16; ++rank) {
      const transport::LinkEmulation e = p.emulation(rank, 10);
      CHECK(e.scale == 10);
      REQUIRE(e.pathTo.size() == 16);
      REQUIRE(e.latencyTo.size() == 16);
      REQUIRE(e.issueTo.size() == 16);
      CHECK(e.pathTo[rank].empty());
      for (int peer = 0; peer < 16; ++peer) {
        if (peer == rank) continue;
        const int hops = torusHops(kSnake4x4[rank], kSnake4x4[peer]);
        INFO("rank " << rank << " to " << peer);
        // Each hop: the DMA link of the chip it leaves, then a NeuronLink.
        REQUIRE(static_cast<int>(e.pathTo[peer].size()) == 2 * hops);
        CHECK(e.latencyTo[peer] == Approx(hops * 1.5e-6));
        CHECK(e.issueTo[peer] == dma.dmaMessageSec);
        for (size_t i = 0; i < e.pathTo[peer].size(); ++i) {
          const int link = e.pathTo[peer][i];
          REQUIRE(link >= 0);
          REQUIRE(link < static_cast<int>(e.linkBytesPerSec.size()));
          CHECK(isDma(e, link) == (i % 2 == 0));
          if (i % 2 == 1) CHECK(e.linkBytesPerSec[link] == Approx(48e9));
        }
      }
    }
  }
  SECTION("two ranks of one chip: its DMA link, then its on-chip link") {
    const core::Placement p(placed("trn1.32xlarge", ""), 2, nullptr);
    const transport::LinkEmulation e = p.emulation(0, 1);
    REQUIRE(e.pathTo.size() == 2);
    CHECK(e.pathTo[0].empty());
    REQUIRE(e.pathTo[1].size() == 2);
    CHECK(isDma(e, e.pathTo[1][0]));
    CHECK(e.linkBytesPerSec.at(e.pathTo[1][1]) == Approx(1e12));
  }
  SECTION("instances: the DMA link, then EFA out and in") {
    const core::Placement p(placed("trn1.2xlarge:2", ""), 4, nullptr);
    const transport::LinkEmulation e = p.emulation(1, 1);
    CHECK(e.pathTo[1].empty());
    CHECK(e.pathTo[0].size() == 2);  // the DMA link, the on-chip link
    for (int peer : {2, 3}) {
      REQUIRE(e.pathTo[peer].size() == 3);
      CHECK(e.latencyTo[peer] >= 15e-6);
      CHECK(isDma(e, e.pathTo[peer].front()));
      // 25 Gbps, at the share of it the file's fitted EFA efficiency gives.
      const double efficiency = topo::loadTopology("trn1.2xlarge:2").efaEfficiency;
      CHECK(efficiency < 1);
      for (int link : {e.pathTo[peer][1], e.pathTo[peer][2]})
        CHECK(e.linkBytesPerSec.at(link) == Approx(25e9 / 8 * efficiency));
    }
  }
  SECTION("without a topology: nothing to emulate") {
    const core::Placement p(core::Config{}, 4, nullptr);
    CHECK(p.emulation(0, 10).linkBytesPerSec.empty());
    CHECK(p.topology() == nullptr);
    CHECK(p.globalCores().empty());
  }
}
