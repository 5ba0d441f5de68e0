// KangaRing: swept on flat groups and on chip layouts (two cores per chip on
// trn1's 4x4 chip torus, a 2x2 and a 4x1 chip grid, four cores per chip, one
// chip, one core per chip, and a torus where the cycle search gives up), and
// the links its channels use on trn1.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <tuple>

#include "algorithms/kangaring.h"
#include "algorithms/ring_pass.h"
#include "base/error.h"
#include "collective_check.h"

using namespace trnccl;
using algo::Collective;

namespace {

const Collective kCollectives[] = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter};

// Messages go between a chip's primary and its secondaries, or between the
// primaries of neighbouring chips on the chip torus.
test::MessageRule chipRoutes(algo::RankLayout layout) {
  return [layout](const algo::CollectiveArgs&, int from, int to) {
    const test::ChipPlace a = test::chipPlace(layout, from), b = test::chipPlace(layout, to);
    const int width = layout.gridWidth / layout.ranksPerChip, height = layout.gridHeight;
    const auto near = [](int p, int q, int size) { return (p + 1) % size == q || (q + 1) % size == p; };
    if (a.chipX == b.chipX && a.chipY == b.chipY) return (a.core == 0) != (b.core == 0);
    const bool neighbours =
        (a.chipY == b.chipY && near(a.chipX, b.chipX, width)) || (a.chipX == b.chipX && near(a.chipY, b.chipY, height));
    return a.core == 0 && b.core == 0 && neighbours;
  };
}

}  // namespace

TEST_CASE("kangaring computes its collectives on flat groups", "[algorithms][kangaring]") {
  algo::KangaRing kanga;
  for (Collective c : kCollectives) {
    CHECK(kanga.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}).empty());
    for (int n = 1; n <= 16; ++n) {
      algo::CollectiveArgs group;
      group.nranks = n;
      test::sweepGroup(kanga, c, group, {test::toRingNeighbour, true});
    }
  }
}

TEST_CASE("kangaring computes its collectives on chip layouts", "[algorithms][kangaring]") {
  algo::KangaRing kanga;
  // gridWidth, gridHeight, ranks per chip: trn1 (4x4 chips of two cores), 2x2 chips,
  // 4x1 chips, 1x4 chips, 3x3 chips, 2x2 chips of four cores, one chip of two
  // and of four, and a 4x4 torus of one core per chip, scrambled.
  for (auto [x, y, k, scrambled] : {std::tuple{8, 4, 2, false},
                                    {4, 2, 2, false},
                                    {8, 1, 2, false},
                                    {2, 4, 2, true},
                                    {6, 3, 2, false},
                                    {8, 2, 4, false},
                                    {2, 1, 2, false},
                                    {4, 1, 4, true},
                                    {4, 4, 1, true}}) {
    const algo::RankLayout layout = test::chipLayout(x, y, k, scrambled);
    algo::CollectiveArgs group;
    group.nranks = x * y;
    group.layout = &layout;
    INFO("grid " << x << 'x' << y << ", " << k << " ranks per chip");
    for (Collective c : kCollectives) test::sweepGroup(kanga, c, group, {chipRoutes(layout), true});
  }
}

TEST_CASE("kangaring on trn1 uses every NeuronLink direction with exactly one channel", "[algorithms][kangaring]") {
  algo::KangaRing kanga;
  const algo::RankLayout trn1 = test::chipLayout(8, 4, 2);
  for (Collective c : kCollectives) {
    // Per directed chip link: the channels (tag slots) whose messages cross it.
    std::map<std::pair<int, int>, std::set<uint32_t>> channelsOn;
    for (int r = 0; r < 32; ++r) {
      algo::CollectiveArgs args{c, r, 32, 64};
      args.layout = &trn1;
      for (const algo::Phase& phase : kanga.build(args).phases)
        for (const algo::Channel& channel : phase.channels)
          for (const algo::Step& step : channel.steps) {
            if (step.sendPeer < 0) continue;
            const test::ChipPlace from = test::chipPlace(trn1, r), to = test::chipPlace(trn1, step.sendPeer);
            const int fromChip = from.chipY * 4 + from.chipX, toChip = to.chipY * 4 + to.chipX;
            if (fromChip == toChip) continue;
            INFO("rank " << r << " sends to rank " << step.sendPeer);
            REQUIRE(from.core == 0);
            REQUIRE(to.core == 0);
            channelsOn[{fromChip, toChip}].insert(step.sendTag / algo::TagRange::kSlotSize);
          }
    }
    // 16 chips x 4 neighbours: the two cycles cover all 32 links, each
    // used both ways, each direction by one of the four channels.
    std::set<std::pair<int, int>> links;
    for (int chip = 0; chip < 16; ++chip) {
      const int x = chip % 4, y = chip / 4;
      for (int to : {y * 4 + (x + 1) % 4, y * 4 + (x + 3) % 4, (y + 1) % 4 * 4 + x, (y + 3) % 4 * 4 + x})
        links.insert({chip, to});
    }
    REQUIRE(links.size() == 64);
    std::map<uint32_t, int> linksOf;
    for (const auto& [link, channels] : channelsOn) {
      CHECK(links.count(link) == 1);
      REQUIRE(channels.size() == 1);
      ++linksOf[*channels.begin()];
    }
    CHECK(channelsOn.size() == links.size());
    CHECK(linksOf == std::map<uint32_t, int>{{0, 16}, {1, 16}, {2, 16}, {3, 16}});
  }
}

TEST_CASE("kangaring says why it cannot run a call", "[algorithms][kangaring][errors]") {
  algo::KangaRing kanga;
  for (Collective c : {Collective::Broadcast, Collective::Reduce, Collective::AllToAll})
    CHECK_THAT(kanga.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}), Catch::Contains("kangaring does not implement"));
  algo::CollectiveArgs args{Collective::AllReduce, 0, 6, 8};
  const algo::RankLayout oddColumns = test::chipLayout(3, 2, 2);
  args.layout = &oddColumns;
  CHECK_THAT(kanga.whyUnsupported(args), Catch::Contains("chips of 2"));
  CHECK_THROWS_AS(kanga.build(args), Error);
  const algo::RankLayout wrongSize = test::chipLayout(2, 2, 2);
  args.layout = &wrongSize;
  CHECK_THAT(kanga.whyUnsupported(args), Catch::Contains("6 ranks"));
}

TEST_CASE("kangaring falls back to one cycle in snake order where its search gives up", "[algorithms][kangaring]") {
  // The bounded search finds no two edge-disjoint cycles of the 4 x 7 chip
  // torus in time: one cycle, row by row, every other row backwards, whose
  // last hop (chip 3, 6 to chip 0, 0) is not a link. The results still hold.
  algo::KangaRing kanga;
  const algo::RankLayout layout = test::chipLayout(4, 7, 1);
  algo::CollectiveArgs args{Collective::AllReduce, 0, 28, 64};
  args.layout = &layout;
  const algo::Schedule s = kanga.build(args);
  REQUIRE(s.phases.size() == 1);
  REQUIRE(s.phases[0].channels.size() == 2);
  std::set<int> peers;
  for (const algo::Channel& channel : s.phases[0].channels)
    for (const algo::Step& step : channel.steps)
      if (step.sendPeer >= 0) peers.insert(step.sendPeer);
  CHECK(peers == std::set<int>{1, 27});
  for (Collective c : kCollectives) test::sweepGroup(kanga, c, args, {{}, true});
}
