// The registry: every algorithm once, in the tuner's preference order for
// ties, each able to run where its entry says.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/registry.h"
#include "algorithms/tuner.h"
#include "collective_check.h"

using namespace trnccl;

TEST_CASE("the registry keeps today's algorithms in the tuner's order of preference for ties",
          "[algorithms][registry]") {
  // Reordering them changes which the tuner picks on a tie; a new algorithm
  // may go anywhere.
  const std::vector<std::string> today = {
      "ring",         "bidir_ring",       "torus2d",          "rdh", "mesh", "kangaring",
      "hierarchical", "hierarchical_rdh", "hierarchical_mesh"};
  std::vector<std::string> names, kept;
  for (const algo::RegisteredAlgorithm& a : algo::registeredAlgorithms()) {
    names.push_back(a.name);
    if (std::find(today.begin(), today.end(), a.name) != today.end()) kept.push_back(a.name);
  }
  CHECK(kept == today);
  CHECK(algo::Tuner::algorithmNames() == names);
}

TEST_CASE("each registered algorithm runs where its entry says", "[algorithms][registry]") {
  const algo::RankLayout twoInstances = test::onInstances(2, 2, false);
  const algo::RankLayout twoChips = test::chipLayout(4, 1, 2);
  for (const algo::RegisteredAlgorithm& registered : algo::registeredAlgorithms()) {
    CAPTURE(registered.name);
    const auto algorithm = registered.make();
    CHECK(algorithm->name() == registered.name);
    bool runsFlat = false, runsAcrossInstances = false, runsOnChips = false;
    for (algo::Collective c : test::kAlgorithmCollectives) {
      algo::CollectiveArgs flat{c, 0, 4, 8};
      runsFlat = runsFlat || algorithm->whyUnsupported(flat).empty();
      algo::CollectiveArgs acrossInstances = flat, onChips = flat;
      acrossInstances.layout = &twoInstances;
      runsAcrossInstances = runsAcrossInstances || algorithm->whyUnsupported(acrossInstances).empty();
      onChips.layout = &twoChips;
      runsOnChips = runsOnChips || algorithm->whyUnsupported(onChips).empty();
    }
    CHECK(runsOnChips == (registered.reach != algo::Reach::Instances));
    CHECK(runsAcrossInstances == (registered.reach != algo::Reach::Chips));
    CHECK(runsFlat == (registered.reach == algo::Reach::AnyRanks));
  }
}
