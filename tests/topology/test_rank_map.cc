// Rank-to-NeuronCore mapping: core and chip orders, explicit lists, errors.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "topology/rank_map.h"

using trnccl::topo::CoreLocation;
using trnccl::topo::loadTopology;
using trnccl::topo::mapRanks;

namespace {

// The 4x4 snake, written out: row 0 left to right, row 1 right to left, ...
const std::vector<int> kSnake4x4{0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12};

bool linked(const trnccl::topo::Topology& t, int a, int b) {
  for (const auto& l : t.links) {
    if ((l.a == a && l.b == b) || (l.a == b && l.b == a)) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("core order fills each chip's NeuronCores, chips in snake order", "[topology][ranks]") {
  const auto t = loadTopology("trn1.32xlarge");
  const auto where = mapRanks(t, 32, "", "test");
  REQUIRE(where.size() == 32);
  for (int r = 0; r < 32; ++r) {
    CHECK(where[r] == CoreLocation{0, kSnake4x4[r / 2], r % 2});
  }
  CHECK(mapRanks(t, 32, "core", "test") == where);
  // Fewer ranks take the first places.
  CHECK(mapRanks(t, 3, "core", "test") == std::vector<CoreLocation>(where.begin(), where.begin() + 3));
}

TEST_CASE("core order puts instances one after another", "[topology][ranks]") {
  const auto t = loadTopology("trn2.48xlarge:3");
  const auto where = mapRanks(t, 3 * 64, "core", "test");
  for (int r = 0; r < 3 * 64; ++r) {
    const int inNode = r % 64;
    CHECK(where[r] == CoreLocation{r / 64, kSnake4x4[inNode / 4], inNode % 4});
  }
}

TEST_CASE("spread order gives every instance an even share, on its first NeuronCores", "[topology][ranks]") {
  const auto t = loadTopology("trn1.32xlarge:4");
  const auto where = mapRanks(t, 8, "spread", "test");
  REQUIRE(where.size() == 8);
  for (int r = 0; r < 8; ++r) {
    const int inNode = r % 2;
    CHECK(where[r] == CoreLocation{r / 2, kSnake4x4[inNode / 2], inNode % 2});
  }
  // A whole instance each is core order.
  CHECK(mapRanks(t, 4 * 32, "spread", "test") == mapRanks(t, 4 * 32, "core", "test"));
}

TEST_CASE("chip order places one rank per chip on NeuronCore 0", "[topology][ranks]") {
  const auto t = loadTopology("trn1.32xlarge:2");
  const auto where = mapRanks(t, 32, "chip", "test");
  for (int r = 0; r < 32; ++r) CHECK(where[r] == CoreLocation{r / 16, kSnake4x4[r % 16], 0});
}

TEST_CASE("consecutive ranks sit on one chip or on linked chips, ring closed", "[topology][ranks]") {
  for (const char* name : {"trn1.32xlarge", "trn1n.32xlarge", "inf2.48xlarge", "trn2.48xlarge", "trn2-ultraserver"}) {
    INFO(name);
    const auto t = loadTopology(name);
    for (const char* order : {"core", "chip"}) {
      INFO(order);
      const int nranks = std::string(order) == "core" ? t.totalCores() : t.chips;
      const auto where = mapRanks(t, nranks, order, "test");
      std::set<std::pair<int, int>> used;
      for (int r = 0; r < nranks; ++r) {
        const CoreLocation a = where[r], b = where[(r + 1) % nranks];
        CHECK((a.chip == b.chip || linked(t, a.chip, b.chip)));
        used.insert({a.chip, a.core});
      }
      CHECK(static_cast<int>(used.size()) == nranks);  // every place once
    }
  }
}

TEST_CASE("an explicit list places each rank on the NeuronCore it names", "[topology][ranks]") {
  const auto t = loadTopology("trn1.32xlarge:2");
  // Global index = node * 32 + chip * 2 + core.
  CHECK(mapRanks(t, 4, "5, 0,31,33", "test") == std::vector<CoreLocation>{{0, 2, 1}, {0, 0, 0}, {0, 15, 1}, {1, 0, 1}});
  CHECK(mapRanks(t, 1, "63", "test") == std::vector<CoreLocation>{{1, 15, 1}});
  CHECK(trnccl::topo::globalCoreIndex(t, {1, 15, 1}) == 63);
  CHECK(trnccl::topo::coreLocation(t, 33) == CoreLocation{1, 0, 1});
}

TEST_CASE("rank orders that cannot be used are refused naming the source", "[topology][ranks]") {
  const auto small = loadTopology("trn1.2xlarge");
  CHECK_THROWS_WITH(mapRanks(small, 8, "", "TRNCCL_RANK_ORDER"),
                    Catch::StartsWith("TRNCCL_RANK_ORDER: trn1.2xlarge") &&
                        Catch::Contains("has 2 NeuronCores; 8 ranks need trn1.2xlarge:4"));
  const auto t = loadTopology("trn1.32xlarge");
  CHECK_THROWS_WITH(mapRanks(t, 17, "chip", "ORDER"), Catch::StartsWith("ORDER: ") && Catch::Contains("has 16 chips") &&
                                                          Catch::Contains("17 ranks need trn1.32xlarge:2"));
  CHECK_THROWS_WITH(mapRanks(t, 2, "1,x", "ORDER"), Catch::Contains("ORDER: '1,x' is not 'core', 'chip'"));
  CHECK_THROWS_WITH(mapRanks(t, 3, "1,,2", "ORDER"),
                    Catch::Contains("entry 1 of '1,,2' ('') is not a NeuronCore index"));
  CHECK_THROWS_WITH(mapRanks(t, 2, "3,3", "ORDER"),
                    Catch::Contains("ORDER: ranks 0 and 1 are both placed on NeuronCore 3"));
  CHECK_THROWS_WITH(mapRanks(t, 1, "32", "ORDER"),
                    Catch::Contains("ORDER: NeuronCore 32 (rank 0) does not exist") && Catch::Contains("0 to 31"));
  CHECK_THROWS_WITH(mapRanks(t, 3, "0,1", "ORDER"), Catch::Contains("ORDER: '0,1' places 2 ranks, but there are 3"));
  CHECK_THROWS_WITH(mapRanks(t, 2, "snake", "ORDER"),
                    Catch::Contains("ORDER: 'snake' is not 'core', 'chip', 'spread' or a comma list"));
  CHECK_THROWS_WITH(mapRanks(loadTopology("trn1.32xlarge:2"), 7, "spread", "ORDER"),
                    Catch::Contains("ORDER: order 'spread'") && Catch::Contains("7 ranks do not divide"));
  CHECK_THROWS_WITH(mapRanks(t, 0, "", "ORDER"), Catch::StartsWith("ORDER: 0 ranks"));
}
