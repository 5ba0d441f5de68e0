// Grid points of NeuronCores for the 2D-torus algorithm.
#include <catch2/catch.hpp>
#include <map>

#include "topology/core_grid.h"

using trnccl::topo::gridHeight;
using trnccl::topo::GridPoint;
using trnccl::topo::gridPoint;
using trnccl::topo::gridWidth;
using trnccl::topo::loadTopology;

TEST_CASE("grid points of a 2D torus put a chip's NeuronCores side by side", "[topology][grid]") {
  const auto t = loadTopology("trn1.32xlarge");
  CHECK(gridWidth(t) == 8);
  CHECK(gridHeight(t) == 4);
  // Chip 6 is at x = 2, y = 1 of the 4x4 torus.
  CHECK(gridPoint(t, {0, 6, 0}) == GridPoint{4, 1});
  CHECK(gridPoint(t, {0, 6, 1}) == GridPoint{5, 1});
  CHECK(gridPoint(t, {0, 15, 1}) == GridPoint{7, 3});
  // Instances are not part of the grid.
  CHECK(gridPoint(loadTopology("trn1.32xlarge:2"), {1, 6, 1}) == GridPoint{5, 1});
}

TEST_CASE("grid points of a 3D torus stack its planes along y", "[topology][grid]") {
  const auto t = loadTopology("trn2-ultraserver");
  CHECK(gridWidth(t) == 16);
  CHECK(gridHeight(t) == 16);
  // Chip 37: x = 1, y = 1, z = 2 (37 = 1 + 4 * (1 + 4 * 2)).
  CHECK(gridPoint(t, {0, 37, 3}) == GridPoint{1 * 4 + 3, 1 + 4 * 2});
}

TEST_CASE("a ring is a single row", "[topology][grid]") {
  const auto ring = loadTopology("inf2.48xlarge");
  CHECK(gridWidth(ring) == 24);
  CHECK(gridHeight(ring) == 1);
  CHECK(gridPoint(ring, {0, 11, 1}) == GridPoint{23, 0});
  const auto single = loadTopology("trn1.2xlarge");
  CHECK(gridWidth(single) == 2);
  CHECK(gridHeight(single) == 1);
  CHECK(gridPoint(single, {0, 0, 1}) == GridPoint{1, 0});
}

TEST_CASE("every NeuronCore has its own grid point, and x neighbours are on linked chips", "[topology][grid]") {
  for (const char* name : {"trn1.32xlarge", "inf2.48xlarge", "trn2.48xlarge", "trn2-ultraserver"}) {
    INFO(name);
    const auto t = loadTopology(name);
    std::map<std::pair<int, int>, trnccl::topo::CoreLocation> at;
    for (int chip = 0; chip < t.chips; ++chip) {
      for (int core = 0; core < t.coresPerChip; ++core) {
        const GridPoint p = gridPoint(t, {0, chip, core});
        REQUIRE(p.x >= 0);
        REQUIRE(p.x < gridWidth(t));
        REQUIRE(p.y >= 0);
        REQUIRE(p.y < gridHeight(t));
        at[{p.x, p.y}] = {0, chip, core};
      }
    }
    CHECK(static_cast<int>(at.size()) == gridWidth(t) * gridHeight(t));
    for (const auto& [point, where] : at) {
      const auto right = at.at({(point.first + 1) % gridWidth(t), point.second});
      bool linked = right.chip == where.chip;
      for (const auto& l : t.links) {
        linked = linked || (l.a == where.chip && l.b == right.chip) || (l.b == where.chip && l.a == right.chip);
      }
      CHECK(linked);
    }
  }
}
