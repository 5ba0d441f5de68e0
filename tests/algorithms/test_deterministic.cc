// Deterministic mode's schedules (algorithms/deterministic.h) for every
// registered algorithm and every reducing collective, run by the independent
// schedule interpreter against its double-precision reference: every count,
// op, in and out of place, root and step bound of sweepGroup, on flat
// groups and on the layouts the algorithms that need one run on.
#include <catch2/catch.hpp>
#include <string>

#include "algorithms/deterministic.h"
#include "algorithms/registry.h"
#include "collective_check.h"

using namespace trnccl;
using namespace trnccl::test;
using algo::Collective;

namespace {

// An algorithm whose schedules are `inner`'s in deterministic mode.
class Deterministic : public algo::Algorithm {
 public:
  explicit Deterministic(const algo::Algorithm& inner) : inner_(inner) {}
  const char* name() const override { return algo::deterministicName(inner_.name()); }
  std::string whyUnsupported(const algo::CollectiveArgs& args) const override { return inner_.whyUnsupported(args); }
  algo::Schedule build(const algo::CollectiveArgs& args) const override {
    return algo::deterministicSchedule(inner_, args);
  }

 private:
  const algo::Algorithm& inner_;
};

}  // namespace

TEST_CASE("deterministic schedules: every algorithm's reducing collectives give the reference result",
          "[deterministic][schedules]") {
  const algo::RankLayout twoInstances = onInstances(2, 3, false);
  const algo::RankLayout chips = chipLayout(2, 2, 2);
  for (const algo::RegisteredAlgorithm& registered : algo::registeredAlgorithms()) {
    const auto inner = registered.make();
    const Deterministic deterministic(*inner);
    std::vector<algo::CollectiveArgs> groups;
    if (registered.reach == algo::Reach::Instances) {
      groups.push_back(algo::CollectiveArgs{Collective::AllReduce, 0, 6, 0});
      groups.back().layout = &twoInstances;
    } else if (registered.reach == algo::Reach::Chips) {
      groups.push_back(algo::CollectiveArgs{Collective::AllReduce, 0, 8, 0});
      groups.back().layout = &chips;
    } else {
      for (int n : {2, 3, 5, 8}) groups.push_back(algo::CollectiveArgs{Collective::AllReduce, 0, n, 0});
    }
    for (Collective c :
         {Collective::AllReduce, Collective::ReduceScatter, Collective::Reduce, Collective::ReduceScatterV})
      for (const algo::CollectiveArgs& group : groups) {
        algo::CollectiveArgs probe = group;
        probe.collective = c;
        probe.count = 17;
        if (c == Collective::ReduceScatterV) probe.v = algo::evenBlocks(c, 17, group.nranks);
        // Deterministic mode runs what the algorithm runs (the API refuses the rest).
        if (!inner->whyUnsupported(probe).empty()) continue;
        INFO(registered.name << ", " << algo::collectiveName(c) << ", " << group.nranks << " ranks");
        sweepGroup(deterministic, c, group);
      }
  }
}
