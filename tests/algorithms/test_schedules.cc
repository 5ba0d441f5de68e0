// Every algorithm x collective x rank count x count x op x in/out of place:
// the schedules of all ranks, run by an independent interpreter, must produce
// the reference result, write every output element exactly once, and leave no
// message unmatched.
#include <catch2/catch.hpp>

#include "algorithms/mesh.h"
#include "algorithms/ring.h"
#include "collective_check.h"

using namespace trnccl;
using algo::Collective;
using test::makeBuffers;
using test::sweep;

TEST_CASE("ring schedules compute every collective it implements", "[algorithms][ring]") {
  algo::Ring ring;
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
                       Collective::Broadcast, Collective::Reduce}) {
    CHECK(ring.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}).empty());
    sweep(ring, c, {test::toNextInRing});
  }
  CHECK_FALSE(ring.whyUnsupported(algo::CollectiveArgs{Collective::AllToAll, 0, 4, 8}).empty());
}

TEST_CASE("mesh schedules compute every collective it implements", "[algorithms][mesh]") {
  algo::Mesh mesh;
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
                       Collective::AllToAll}) {
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
