// The registry: every algorithm once, in the order of the tuner's tie rule,
// each able to run where its entry says.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/registry.h"
#include "algorithms/tuner.h"
#include "collective_check.h"

using namespace trnccl;

TEST_CASE("the registry lists the algorithms by the tie rule: simplicity, then name", "[algorithms][registry]") {
  const auto& all = algo::registeredAlgorithms();
  for (size_t i = 1; i < all.size(); ++i) {
    CAPTURE(all[i - 1].name, all[i].name);
    CHECK((all[i - 1].simplicity < all[i].simplicity ||
           (all[i - 1].simplicity == all[i].simplicity && all[i - 1].name < all[i].name)));
  }
  // The rule itself, on entries of equal and of different simplicity.
  const algo::RegisteredAlgorithm simple{"zeta", algo::Reach::AnyRanks, nullptr, 0},
      complex{"alpha", algo::Reach::AnyRanks, nullptr, 1}, twin{"beta", algo::Reach::AnyRanks, nullptr, 1};
  CHECK(algo::preferredOnTie(simple, complex));
  CHECK_FALSE(algo::preferredOnTie(complex, simple));
  CHECK(algo::preferredOnTie(complex, twin));
  CHECK_FALSE(algo::preferredOnTie(twin, complex));
}

TEST_CASE("the registry keeps today's algorithms in the tuner's order of preference for ties",
          "[algorithms][registry]") {
  // Their declared simplicity orders them so; a new algorithm may go anywhere.
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
