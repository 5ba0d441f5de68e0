// The 2D-torus algorithm on explicit grids (ranks placed in scrambled order)
// and on grids it factors itself, and the grid it picks.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <random>
#include <set>
#include <tuple>

#include "algorithms/rank_grid.h"
#include "algorithms/torus2d.h"
#include "base/error.h"
#include "collective_check.h"

using namespace trnccl;
using algo::Collective;

namespace {

// An X x Y layout whose ranks sit in a scrambled (but fixed) order.
algo::RankLayout scrambledGrid(int x, int y) {
  algo::RankLayout layout;
  layout.gridWidth = x;
  layout.gridHeight = y;
  layout.grid.resize(x * y);
  std::iota(layout.grid.begin(), layout.grid.end(), 0);
  std::shuffle(layout.grid.begin(), layout.grid.end(), std::mt19937(x * 100 + y));
  return layout;
}

// Messages go only to a neighbour in the same row or column, wrapping around.
test::MessageRule gridNeighbours(algo::RankLayout grid) {
  return [grid](const algo::CollectiveArgs&, int from, int to) {
    const auto place = [&](int r) {
      const int i = static_cast<int>(std::find(grid.grid.begin(), grid.grid.end(), r) - grid.grid.begin());
      return std::pair{i % grid.gridWidth, i / grid.gridWidth};
    };
    const auto [fx, fy] = place(from);
    const auto [tx, ty] = place(to);
    const auto adjacent = [](int a, int b, int size) { return (a + 1) % size == b || (b + 1) % size == a; };
    return (fy == ty && adjacent(fx, tx, grid.gridWidth)) || (fx == tx && adjacent(fy, ty, grid.gridHeight));
  };
}

algo::RankLayout rowMajor(int x, int y) {
  algo::RankLayout layout{x, y, std::vector<int>(x * y), {}};
  std::iota(layout.grid.begin(), layout.grid.end(), 0);
  return layout;
}

const Collective kTorusCollectives[] = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter};

}  // namespace

TEST_CASE("torus2d computes its collectives on explicit grids with scrambled placement", "[algorithms][torus2d]") {
  algo::Torus2d torus;
  for (auto [x, y] : {std::pair{1, 1}, {2, 2}, {2, 3}, {3, 2}, {4, 4}, {1, 5}, {4, 1}, {2, 8}}) {
    const algo::RankLayout layout = scrambledGrid(x, y);
    algo::CollectiveArgs group;
    group.nranks = x * y;
    group.layout = &layout;
    for (Collective c : kTorusCollectives) test::sweepGroup(torus, c, group, {gridNeighbours(layout), true});
  }
}

TEST_CASE("torus2d computes its collectives on the grid it factors", "[algorithms][torus2d]") {
  algo::Torus2d torus;
  // Rank count -> the most square grid, X <= Y, ranks in row-major order.
  for (auto [n, x, y] : {std::tuple{1, 1, 1}, {4, 2, 2}, {5, 1, 5}, {6, 2, 3}, {16, 4, 4}}) {
    const algo::RankLayout expectedGrid = rowMajor(x, y);
    const algo::RankLayout noGrid;  // a layout that knows nothing also factors
    for (const algo::RankLayout* layout : {static_cast<const algo::RankLayout*>(nullptr), &noGrid}) {
      algo::CollectiveArgs group;
      group.nranks = n;
      group.layout = layout;
      for (Collective c : kTorusCollectives) test::sweepGroup(torus, c, group, {gridNeighbours(expectedGrid), true});
    }
  }
}

TEST_CASE("without a layout grid, the grid is the most square factoring", "[algorithms][torus2d][grid]") {
  for (auto [n, x, y] : {std::tuple{1, 1, 1}, {6, 2, 3}, {7, 1, 7}, {12, 3, 4}, {16, 4, 4}, {32, 4, 8}}) {
    algo::CollectiveArgs args;
    args.nranks = n;
    const algo::RankGrid grid = algo::gridFor(args);
    CHECK(grid.width == x);
    CHECK(grid.height == y);
    CHECK(grid.ranks == rowMajor(x, y).grid);
  }
  const algo::RankLayout layout = scrambledGrid(2, 3);
  algo::CollectiveArgs args;
  args.nranks = 6;
  args.layout = &layout;
  const algo::RankGrid grid = algo::gridFor(args);
  CHECK(grid.width == 2);
  CHECK(grid.ranks == layout.grid);
  CHECK(grid.at(1, 2) == layout.grid[5]);
  CHECK(grid.xOf(layout.grid[3]) == 1);
  CHECK(grid.yOf(layout.grid[3]) == 1);
}

TEST_CASE("torus2d keeps the four links of every rank busy in each phase", "[algorithms][torus2d]") {
  algo::Torus2d torus;
  const algo::RankLayout layout = scrambledGrid(4, 4);
  const auto isNeighbour = gridNeighbours(layout);
  for (Collective c : kTorusCollectives) {
    algo::CollectiveArgs args{c, 5, 16, 64};
    args.layout = &layout;
    const algo::Schedule s = torus.build(args);
    const int phases = c == Collective::AllReduce ? 4 : 2;
    REQUIRE(s.phases.size() == static_cast<size_t>(phases));
    for (const algo::Phase& phase : s.phases) {
      REQUIRE(phase.channels.size() == 4);
      std::set<int> to;
      for (const algo::Channel& channel : phase.channels)
        for (const algo::Step& step : channel.steps)
          if (step.sendPeer >= 0) to.insert(step.sendPeer);
      CHECK(to.size() == 4);
      for (int peer : to) CHECK(isNeighbour(args, 5, peer));
    }
  }
}

TEST_CASE("torus2d says why it cannot run a call", "[algorithms][torus2d][errors]") {
  algo::Torus2d torus;
  CHECK_THAT(torus.whyUnsupported(algo::CollectiveArgs{Collective::Broadcast, 0, 4, 8}),
             Catch::Contains("torus2d does not implement broadcast"));
  algo::CollectiveArgs args{Collective::AllReduce, 0, 6, 8};
  algo::RankLayout wrongSize = rowMajor(2, 2);
  args.layout = &wrongSize;
  CHECK_THAT(torus.whyUnsupported(args), Catch::Contains("2 x 2") && Catch::Contains("6 ranks"));
  algo::RankLayout repeated = rowMajor(2, 3);
  repeated.grid[4] = 0;
  args.layout = &repeated;
  CHECK_THAT(torus.whyUnsupported(args), Catch::Contains("exactly once"));
  CHECK_THROWS_AS(torus.build(args), Error);
}
