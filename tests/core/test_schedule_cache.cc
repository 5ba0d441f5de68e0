// The communicator's schedule cache: one build per call, a different
// schedule for a different call, and a bounded size.
#include <catch2/catch.hpp>

#include "core/schedule_cache.h"

using namespace trnccl;
using namespace trnccl::core;

namespace {

algo::CollectiveArgs allReduce(size_t count) {
  algo::CollectiveArgs a;
  a.collective = algo::Collective::AllReduce;
  a.count = count;
  return a;
}

// Builds a schedule that remembers which build made it.
struct CountingBuild {
  int builds = 0;
  algo::Schedule operator()() {
    algo::Schedule s;
    s.scratchElements = static_cast<size_t>(++builds);
    return s;
  }
};

}  // namespace

TEST_CASE("schedule cache: the same call gets the same schedule, built once", "[schedule-cache]") {
  ScheduleCache cache;
  CountingBuild build;
  const algo::Schedule& first = cache.find(allReduce(10), std::ref(build));
  const algo::Schedule& again = cache.find(allReduce(10), std::ref(build));
  CHECK(&first == &again);
  CHECK(build.builds == 1);
  CHECK(cache.size() == 1);
}

TEST_CASE("schedule cache: calls that differ in any field of the key get their own schedules", "[schedule-cache]") {
  ScheduleCache cache;
  CountingBuild build;
  const algo::CollectiveArgs base = allReduce(10);
  std::vector<algo::CollectiveArgs> variants(6, base);
  variants[0].collective = algo::Collective::AllGather;
  variants[1].count = 11;
  variants[2].type = trncclInt32;
  variants[3].op = trncclMax;
  variants[4].root = 1;
  variants[5].inPlace = true;
  const size_t baseBuild = cache.find(base, std::ref(build)).scratchElements;
  for (const algo::CollectiveArgs& v : variants) CHECK(cache.find(v, std::ref(build)).scratchElements != baseBuild);
  CHECK(build.builds == 7);
  // Going back to the first call finds its schedule, not the last one.
  CHECK(cache.find(base, std::ref(build)).scratchElements == baseBuild);
  CHECK(build.builds == 7);
}

TEST_CASE("schedule cache: past its capacity it forgets every schedule and builds again", "[schedule-cache]") {
  ScheduleCache cache;
  CountingBuild build;
  for (size_t count = 1; count <= ScheduleCache::kCapacity; ++count) cache.find(allReduce(count), std::ref(build));
  CHECK(cache.size() == ScheduleCache::kCapacity);
  cache.find(allReduce(ScheduleCache::kCapacity + 1), std::ref(build));
  CHECK(cache.size() == 1);
  cache.find(allReduce(1), std::ref(build));
  CHECK(build.builds == static_cast<int>(ScheduleCache::kCapacity) + 2);
}

TEST_CASE("schedule cache: a build that throws leaves the cache usable", "[schedule-cache]") {
  ScheduleCache cache;
  CountingBuild build;
  for (size_t count = 1; count <= ScheduleCache::kCapacity; ++count) cache.find(allReduce(count), std::ref(build));
  CHECK_THROWS(cache.find(allReduce(0), []() -> algo::Schedule { throw std::runtime_error("refused"); }));
  // The last call found before the failed build is built again, not served
  // from the schedules the full cache forgot.
  CHECK(cache.find(allReduce(ScheduleCache::kCapacity), std::ref(build)).scratchElements ==
        ScheduleCache::kCapacity + 1);
}
