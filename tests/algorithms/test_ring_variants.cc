// The ring pass and the algorithms built on it for flat groups: ring (swept in
// test_schedules.cc) and the bidirectional ring.
#include <catch2/catch.hpp>
#include <set>

#include "algorithms/bidir_ring.h"
#include "algorithms/ring_pass.h"
#include "base/error.h"
#include "collective_check.h"

using namespace trnccl;
using algo::Collective;

TEST_CASE("bidir_ring schedules compute all-reduce, all-gather and reduce-scatter", "[algorithms][bidir_ring]") {
  algo::BidirRing bidir;
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter}) {
    CHECK(bidir.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}).empty());
    test::sweep(bidir, c, {test::toRingNeighbour, true});
  }
  for (Collective c : {Collective::Broadcast, Collective::Reduce, Collective::AllToAll})
    CHECK_THAT(bidir.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}), Catch::Contains("bidir_ring"));
}

TEST_CASE("bidir_ring sends half the data each way around the ring at once", "[algorithms][bidir_ring]") {
  algo::BidirRing bidir;
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter}) {
    const algo::Schedule s = bidir.build(algo::CollectiveArgs{c, 2, 5, 40});
    REQUIRE(s.phases.size() == 1);
    REQUIRE(s.phases[0].channels.size() == 2);
    size_t moved[2] = {0, 0};
    for (int h = 0; h < 2; ++h) {
      std::set<int> to;
      for (const algo::Step& step : s.phases[0].channels[h].steps)
        if (step.sendPeer >= 0) to.insert(step.sendPeer), moved[h] += step.count;
      CHECK(to == std::set<int>{h == 0 ? 3 : 1});
    }
    CHECK(moved[0] == moved[1]);
  }
}

TEST_CASE("a ring pass that would need more tags than its range is an error", "[algorithms][ring_pass][errors]") {
  // 2^20 one-element rounds of 2 sends each do not fit in one tag slot.
  const algo::RingPass pass(algo::RingMembers{{0, 1, 2}, 0, 1},
                            algo::RingBlocks{1, [](int) { return size_t{1} << 20; }}, 1);
  std::vector<algo::Step> steps;
  const algo::PieceAt at = [](int b, int) { return algo::Span{algo::kSend, (size_t{1} << 20) * b}; };
  CHECK_THROWS_WITH(pass.reduceScatter(at, at, true, algo::TagRange::slot(0), steps),
                    Catch::Contains("message tags") && Catch::Contains("step size"));
  CHECK_THROWS_AS(algo::RingPass(algo::RingMembers{{3}, 0, 1}, algo::RingBlocks{1, [](int) { return size_t{4}; }}, 0),
                  Error);
}
