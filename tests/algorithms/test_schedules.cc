// Every algorithm x collective x rank count x count x op x in/out of place:
// the schedules of all ranks, run by an independent interpreter, must produce
// the reference result, write every output element exactly once, and leave no
// message unmatched.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "algorithms/direct.h"
#include "algorithms/mesh.h"
#include "algorithms/registry.h"
#include "algorithms/ring.h"
#include "collective_check.h"
#include "uneven_calls.h"

using namespace trnccl;
using algo::Collective;
using test::makeBuffers;
using test::sweep;

TEST_CASE("every registered algorithm computes every collective it implements", "[algorithms][registry]") {
  // For the algorithms that need instances: 2 x 2 ranks in blocks, 3 x 2 interleaved.
  const std::vector<algo::RankLayout> onInstances = {test::onInstances(2, 2, false), test::onInstances(3, 2, true)};
  // For the algorithms that need chips: 2 x 2 chips of 2 cores.
  const algo::RankLayout onChips = test::chipLayout(4, 2, 2);
  for (const algo::RegisteredAlgorithm& registered : algo::registeredAlgorithms()) {
    CAPTURE(registered.name);
    const auto algorithm = registered.make();
    int implemented = 0;
    for (Collective c : test::kAlgorithmCollectives) {
      if (registered.reach == algo::Reach::AnyRanks && algorithm->whyUnsupported({c, 0, 4, 8}).empty()) {
        sweep(*algorithm, c);
        ++implemented;
      }
      for (const algo::RankLayout& layout : onInstances) {
        algo::CollectiveArgs group{c, 0, static_cast<int>(layout.instanceOf.size()), 8};
        group.layout = &layout;
        if (registered.reach == algo::Reach::Instances && algorithm->whyUnsupported(group).empty()) {
          test::sweepGroup(*algorithm, c, group);
          ++implemented;
        }
      }
    }
    algo::CollectiveArgs chipGroup{Collective::AllReduce, 0, 8, 8};
    chipGroup.layout = &onChips;
    for (Collective c : test::kAlgorithmCollectives) {
      chipGroup.collective = c;
      if (registered.reach == algo::Reach::Chips && algorithm->whyUnsupported(chipGroup).empty()) {
        test::sweepGroup(*algorithm, c, chipGroup);
        ++implemented;
      }
    }
    CHECK(implemented > 0);
  }
}

TEST_CASE("ring schedules compute every collective it implements", "[algorithms][ring]") {
  algo::Ring ring;
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast,
                       Collective::Reduce, Collective::AllGatherV, Collective::ReduceScatterV}) {
    CHECK(ring.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}).empty());
    sweep(ring, c, {test::toNextInRing});
  }
  CHECK_FALSE(ring.whyUnsupported(algo::CollectiveArgs{Collective::AllToAll, 0, 4, 8}).empty());
}

TEST_CASE("mesh schedules compute every collective it implements", "[algorithms][mesh]") {
  algo::Mesh mesh;
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::AllToAll,
                       Collective::AllToAllV}) {
    CHECK(mesh.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}).empty());
    sweep(mesh, c);
  }
  CHECK_FALSE(mesh.whyUnsupported(algo::CollectiveArgs{Collective::Broadcast, 0, 4, 8}).empty());
}

TEST_CASE("direct schedules gather and scatter through the root, and permute to the named peers only",
          "[algorithms][direct]") {
  algo::Direct direct;
  const auto withRoot = [](const algo::CollectiveArgs& args, int from, int to) {
    return from == args.root || to == args.root;
  };
  for (Collective c : {Collective::Gather, Collective::Scatter}) {
    CHECK(direct.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}).empty());
    sweep(direct, c, {withRoot});
  }
  // Permute's peers differ by rank, so the rule is checked per rank's own.
  for (int n : {1, 2, 3, 5, 8}) {
    for (int pattern = 0; pattern < test::kUnevenPatterns; ++pattern) {
      algo::CollectiveArgs call{Collective::Permute, 0, n, 17};
      const auto ranks = test::unevenCall(call, pattern);
      test::checkRanks(direct, ranks, {[&](const algo::CollectiveArgs&, int from, int to) {
                         return ranks[from].sendPeer == to && ranks[to].recvPeer == from;
                       }});
    }
  }
  CHECK_FALSE(direct.whyUnsupported(algo::CollectiveArgs{Collective::AllReduce, 0, 4, 8}).empty());
}

TEST_CASE("the uneven calls of the sweep are uneven, with empty blocks", "[algorithms]") {
  // The v-collectives' sweep must not degenerate into the even case.
  for (Collective c : {Collective::AllGatherV, Collective::ReduceScatterV, Collective::AllToAllV}) {
    const auto ranks = test::unevenCall(algo::CollectiveArgs{c, 0, 5, 3}, 1);
    const algo::VarCounts& v = *ranks[2].v;
    const auto& counts = c == Collective::AllGatherV ? v.recvCounts : v.sendCounts;
    CHECK(std::count(counts.begin(), counts.end(), size_t{0}) > 0);
    CHECK(*std::max_element(counts.begin(), counts.end()) > 1);
  }
}

TEST_CASE("the interpreter catches broken schedules", "[algorithms]") {
  // A schedule whose receive has no matching send must be reported, not pass.
  algo::Ring ring;
  algo::CollectiveArgs args{Collective::AllReduce, 0, 2, 4};
  std::vector<algo::Schedule> schedules{ring.build(args)};
  args.rank = 1;
  schedules.push_back(ring.build(args));
  schedules[1].phases[0].channels[0].steps[1].recvTag = 99;
  std::vector<test::RankBuffers> buffers{makeBuffers(Collective::AllReduce, 4, 2, 0, false),
                                         makeBuffers(Collective::AllReduce, 4, 2, 1, false)};
  CHECK_FALSE(test::interpret(schedules, buffers).ok);
}
