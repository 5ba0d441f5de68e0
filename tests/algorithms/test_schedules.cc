// Every algorithm x collective x rank count x count x op x in/out of place:
// the schedules of all ranks, run by an independent interpreter, must produce
// the reference result, write every output element exactly once, and leave no
// message unmatched.
#include <catch2/catch.hpp>

#include <vector>

#include "algorithms/mesh.h"
#include "algorithms/registry.h"
#include "algorithms/ring.h"
#include "collective_check.h"

using namespace trnccl;
using algo::Collective;
using test::makeBuffers;
using test::sweep;

TEST_CASE("every registered algorithm computes every collective it implements", "[algorithms][registry]") {
  // For the algorithms that need instances: 2 x 2 ranks in blocks, 3 x 2 interleaved.
  const std::vector<algo::RankLayout> onInstances = {test::onInstances(2, 2, false), test::onInstances(3, 2, true)};
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
    CHECK(implemented > 0);
  }
}

TEST_CASE("ring schedules compute every collective it implements", "[algorithms][ring]") {
  algo::Ring ring;
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast,
                       Collective::Reduce}) {
    CHECK(ring.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}).empty());
    sweep(ring, c, {test::toNextInRing});
  }
  CHECK_FALSE(ring.whyUnsupported(algo::CollectiveArgs{Collective::AllToAll, 0, 4, 8}).empty());
}

TEST_CASE("mesh schedules compute every collective it implements", "[algorithms][mesh]") {
  algo::Mesh mesh;
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::AllToAll}) {
    CHECK(mesh.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}).empty());
    sweep(mesh, c);
  }
  CHECK_FALSE(mesh.whyUnsupported(algo::CollectiveArgs{Collective::Broadcast, 0, 4, 8}).empty());
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
