// Recursive halving-doubling: the schedules of all ranks, run by the
// independent interpreter (collective_check.h), must produce the reference
// result for every collective it implements x op x n = 1..16 x count x
// in/out-of-place and write every output element once per rank; and every
// result element is reduced at exactly one rank, then only copied.
#include <algorithm>
#include <catch2/catch.hpp>

#include "algorithms/rdh.h"
#include "collective_check.h"

using namespace trnccl;
using algo::Collective;

namespace {

std::vector<algo::Schedule> schedulesOf(algo::CollectiveArgs args) {
  std::vector<algo::Schedule> schedules;
  for (int r = 0; r < args.nranks; ++r) {
    args.rank = r;
    schedules.push_back(algo::Rdh().build(args));
  }
  return schedules;
}

template <class Visit>
void forEachStep(const algo::Schedule& s, Visit visit) {
  for (const auto& phase : s.phases)
    for (const auto& channel : phase.channels)
      for (const auto& step : channel.steps) visit(step);
}

// The final reductions of all ranks together cover each result element once.
void checkReducedOnce(const algo::CollectiveArgs& args) {
  size_t finalElements = 0;
  for (const algo::Schedule& s : schedulesOf(args))
    forEachStep(s, [&](const algo::Step& step) { finalElements += step.final ? step.count : 0; });
  CHECK(finalElements == (args.collective == Collective::AllReduce ? args.count : args.count * args.nranks));
}

}  // namespace

TEST_CASE("rdh computes all-reduce, reduce-scatter and all-gather for 1..16 ranks", "[algorithms][rdh]") {
  algo::Rdh rdh;
  for (Collective c : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather}) {
    for (int n = 1; n <= 16; ++n) {
      algo::CollectiveArgs group;
      group.nranks = n;
      test::sweepGroup(rdh, c, group);
      if (c == Collective::AllGather || n == 1) continue;
      for (size_t count : {1, 3, 17, 64}) {
        INFO(algo::collectiveName(c) << " n=" << n << " count=" << count);
        checkReducedOnce(algo::CollectiveArgs{c, 0, n, count});
      }
    }
  }
}

TEST_CASE("rdh halves at distances p/2..1 and doubles back at 1..p/2", "[algorithms][rdh]") {
  // 8 ranks, 64 elements: each level exchanges with rank ^ distance, and the
  // messages carry 32, 16, 8 elements while halving, then 8, 16, 32.
  algo::CollectiveArgs args;
  args.nranks = 8;
  args.count = 64;
  const int distances[] = {4, 2, 1, 1, 2, 4};
  const size_t sizes[] = {32, 16, 8, 8, 16, 32};
  for (const algo::Schedule& s : schedulesOf(args)) {
    INFO("rank " << s.rank);
    REQUIRE(s.phases.size() == 6);
    for (size_t level = 0; level < 6; ++level) {
      for (const auto& channel : s.phases[level].channels) {
        REQUIRE(channel.steps.size() == 1);
        const algo::Step& step = channel.steps[0];
        const int peer = step.recvPeer >= 0 ? step.recvPeer : step.sendPeer;
        CHECK(peer == (s.rank ^ distances[level]));
        CHECK(step.count == sizes[level]);
      }
    }
  }
}

TEST_CASE("rdh folds ranks beyond a power of two into their neighbours", "[algorithms][rdh]") {
  // 6 ranks: p = 4, r = 2. Ranks 0 and 2 send their input to 1 and 3 and
  // take no part until the result comes back; they exchange with no one else.
  algo::CollectiveArgs args;
  args.nranks = 6;
  args.count = 12;
  for (const algo::Schedule& s : schedulesOf(args)) {
    std::vector<int> peers;
    forEachStep(s, [&](const algo::Step& step) {
      for (int peer : {step.recvPeer, step.sendPeer})
        if (peer >= 0) peers.push_back(peer);
    });
    INFO("rank " << s.rank);
    if (s.rank == 0 || s.rank == 2) {
      CHECK(peers == std::vector<int>{s.rank + 1, s.rank + 1});
    } else {
      const bool touchesRank0 = std::find(peers.begin(), peers.end(), 0) != peers.end();
      const bool touchesRank2 = std::find(peers.begin(), peers.end(), 2) != peers.end();
      CHECK(touchesRank0 == (s.rank == 1));
      CHECK(touchesRank2 == (s.rank == 3));
    }
  }
}

TEST_CASE("rdh names the collectives it does not implement", "[algorithms][rdh]") {
  algo::Rdh rdh;
  CHECK(rdh.whyUnsupported(algo::CollectiveArgs{Collective::AllReduce, 0, 4, 8}).empty());
  for (Collective c : {Collective::Broadcast, Collective::Reduce, Collective::AllToAll})
    CHECK(rdh.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}).find(algo::collectiveName(c)) != std::string::npos);
}
