// The hierarchical all-reduce over instances, with each inter-instance
// algorithm embedded, and the embedding itself.
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "algorithms/bidir_ring.h"
#include "algorithms/hierarchical.h"
#include "algorithms/mesh.h"
#include "algorithms/rdh.h"
#include "algorithms/ring.h"
#include "algorithms/torus2d.h"
#include "base/error.h"
#include "collective_check.h"

using namespace trnccl;
using algo::Collective;

namespace {

// Within an instance, the next or the previous rank of the instance (in rank
// order, wrapping around: all-reduce goes round both ways); across
// instances, only the rank with the same local index.
bool instanceRingOrSameLocalIndex(const algo::CollectiveArgs& args, int from, int to) {
  const std::vector<int>& of = args.layout->instanceOf;
  auto ranksOn = [&](int instance) {
    std::vector<int> ranks;
    for (int r = 0; r < args.nranks; ++r)
      if (of[r] == instance) ranks.push_back(r);
    return ranks;
  };
  const std::vector<int> mine = ranksOn(of[from]), theirs = ranksOn(of[to]);
  const auto localIndex = [](const std::vector<int>& ranks, int r) {
    return std::find(ranks.begin(), ranks.end(), r) - ranks.begin();
  };
  const size_t at = localIndex(mine, from), n = mine.size();
  if (of[from] == of[to]) return mine[(at + 1) % n] == to || mine[(at + n - 1) % n] == to;
  return localIndex(mine, from) == localIndex(theirs, to);
}

// Within a chip, the next or the previous core of the chip (wrapping
// around); across chips, only the same core of a chip one NeuronLink hop
// away on the chip torus.
bool chipRingOrNeighbourChip(const algo::CollectiveArgs& args, int from, int to) {
  const algo::RankLayout& layout = *args.layout;
  const test::ChipPlace a = test::chipPlace(layout, from), b = test::chipPlace(layout, to);
  const int k = layout.ranksPerChip, width = layout.gridWidth / k, height = layout.gridHeight;
  if (a.chipX == b.chipX && a.chipY == b.chipY) return (a.core + 1) % k == b.core || (b.core + 1) % k == a.core;
  const auto near = [](int p, int q, int size) { return (p + 1) % size == q || (q + 1) % size == p; };
  const bool neighbours =
      (a.chipY == b.chipY && near(a.chipX, b.chipX, width)) || (a.chipX == b.chipX && near(a.chipY, b.chipY, height));
  return a.core == b.core && neighbours;
}

// An inter-instance algorithm that can run no call.
class Refuser : public algo::Algorithm {
 public:
  const char* name() const override { return "refuser"; }
  std::string whyUnsupported(const algo::CollectiveArgs&) const override { return "refuser runs nothing"; }
  algo::Schedule build(const algo::CollectiveArgs&) const override { throw Error(trncclInternalError, "refused"); }
};

}  // namespace

TEST_CASE("hierarchical all-reduce, all-gather and reduce-scatter are right with every inter-instance algorithm",
          "[algorithms][hierarchical]") {
  // With whether its steps stay within maxStepElements: mesh and rdh exchange
  // whole parts in one step, the ring-based ones bound their steps.
  std::vector<std::pair<std::unique_ptr<algo::Hierarchical>, bool>> algorithms;
  algorithms.emplace_back(std::make_unique<algo::Hierarchical>(), true);
  algorithms.emplace_back(std::make_unique<algo::Hierarchical>(std::make_unique<algo::BidirRing>()), true);
  algorithms.emplace_back(std::make_unique<algo::Hierarchical>(std::make_unique<algo::Torus2d>()), true);
  algorithms.emplace_back(std::make_unique<algo::Hierarchical>(std::make_unique<algo::Mesh>()), false);
  algorithms.emplace_back(std::make_unique<algo::Hierarchical>(std::make_unique<algo::Rdh>()), false);
  for (const auto& [hierarchical, bounded] : algorithms) {
    for (auto [instances, local] : {std::pair{2, 2}, {4, 2}, {2, 4}, {3, 3}}) {
      for (bool interleaved : {true, false}) {
        const algo::RankLayout layout = test::onInstances(instances, local, interleaved);
        algo::CollectiveArgs group;
        group.nranks = instances * local;
        group.layout = &layout;
        for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter})
          test::sweepGroup(*hierarchical, c, group, {instanceRingOrSameLocalIndex, bounded});
      }
    }
  }
}

TEST_CASE("chip_rdh reduces on each chip, then runs RDH between neighbouring chips", "[algorithms][hierarchical]") {
  // Neuron's RDH on a torus of multi-core chips: chips of a ring of 2 or 4 in
  // Gray-code order, so every RDH partner is one hop away; other ring lengths
  // (3) are not hypercubes, and their partners may be farther.
  const algo::Hierarchical chipRdh(std::make_unique<algo::Rdh>(), algo::Grouping::Chips);
  CHECK(std::string(chipRdh.name()) == "chip_rdh");
  for (auto [width, height, k] : {std::tuple{8, 4, 2}, {4, 2, 2}, {8, 2, 4}, {4, 4, 1}, {2, 1, 1}}) {
    for (bool scrambled : {false, true}) {
      const algo::RankLayout layout = test::chipLayout(width, height, k, scrambled);
      algo::CollectiveArgs group;
      group.nranks = width * height;
      group.layout = &layout;
      for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter})
        test::sweepGroup(chipRdh, c, group, {chipRingOrNeighbourChip, false});
    }
  }
  const algo::RankLayout threeChips = test::chipLayout(6, 1, 2);
  algo::CollectiveArgs group;
  group.nranks = 6;
  group.layout = &threeChips;
  test::sweepGroup(chipRdh, Collective::AllReduce, group, {{}, false});

  algo::CollectiveArgs args{Collective::AllReduce, 0, 4, 8};
  CHECK_THAT(chipRdh.whyUnsupported(args), Catch::Contains("grid"));
  const algo::RankLayout oneChip = test::chipLayout(4, 1, 4);
  args.layout = &oneChip;
  CHECK_THAT(chipRdh.whyUnsupported(args), Catch::Contains("two chips or more"));
}

TEST_CASE("hierarchical all-reduce goes both ways round groups of three or more ranks when the parts are large",
          "[algorithms][hierarchical]") {
  // Parts of 256 KiB and more (64 Ki floats): the first half of every part
  // forwards, the second backwards, on two channels; smaller parts, or
  // groups of two, keep one ring. Counts that do not divide evenly.
  const algo::Hierarchical hierarchical(std::make_unique<algo::Rdh>());
  for (auto [instances, local] : {std::pair{2, 4}, {2, 3}, {2, 2}}) {
    const algo::RankLayout layout = test::onInstances(instances, local, false);
    for (size_t count : {size_t{65536} * local + 7, size_t{65536} * local - 7}) {
      algo::CollectiveArgs args{Collective::AllReduce, 0, instances * local, count};
      args.layout = &layout;
      CAPTURE(instances, local, count);
      test::checkCollective(hierarchical, args, {instanceRingOrSameLocalIndex, false});
      const algo::Schedule s = hierarchical.build(args);
      const bool bothWays = local > 2 && count / local >= 65536;
      CHECK(s.phases.front().channels.size() == (bothWays ? 2u : 1u));
      CHECK(s.phases.back().channels.size() == (bothWays ? 2u : 1u));
      if (bothWays) {
        // Rank 0 sends to its next rank on one channel, its previous on the other.
        CHECK(s.phases.front().channels[0].steps.front().sendPeer == 1);
        CHECK(s.phases.front().channels[1].steps.front().sendPeer == local - 1);
      }
    }
  }
}

TEST_CASE("hierarchical is named after its inter-instance algorithm", "[algorithms][hierarchical]") {
  CHECK(std::string(algo::Hierarchical().name()) == "hierarchical");
  CHECK(std::string(algo::Hierarchical(std::make_unique<algo::Mesh>()).name()) == "hierarchical_mesh");
}

TEST_CASE("hierarchical says why it cannot run a call", "[algorithms][hierarchical][errors]") {
  algo::Hierarchical hierarchical;
  algo::CollectiveArgs args{Collective::AllReduce, 0, 4, 8};
  CHECK_THAT(hierarchical.whyUnsupported(args), Catch::Contains("which instance"));
  const algo::RankLayout oneInstance = test::onInstances(1, 4, false);
  args.layout = &oneInstance;
  CHECK_THAT(hierarchical.whyUnsupported(args), Catch::Contains("two instances"));
  const algo::RankLayout unequal{0, 0, {}, {0, 0, 0, 1}};
  args.layout = &unequal;
  CHECK_THAT(hierarchical.whyUnsupported(args), Catch::Contains("as many ranks on every instance"));
  const algo::RankLayout tooFew{0, 0, {}, {0, 1}};
  args.layout = &tooFew;
  CHECK_THAT(hierarchical.whyUnsupported(args), Catch::Contains("2 ranks, not 4"));
  const algo::RankLayout twoByTwo = test::onInstances(2, 2, false);
  args.layout = &twoByTwo;
  CHECK(hierarchical.whyUnsupported(args).empty());
  args.collective = Collective::AllGather;
  CHECK(hierarchical.whyUnsupported(args).empty());
  args.collective = Collective::Broadcast;
  CHECK_THAT(hierarchical.whyUnsupported(args), Catch::Contains("does not implement broadcast"));
  CHECK_THROWS_AS(hierarchical.build(args), Error);
  // The inter-instance algorithm's own refusal is passed on.
  algo::Hierarchical overRefuser(std::make_unique<Refuser>());
  args.collective = Collective::AllReduce;
  CHECK_THAT(overRefuser.whyUnsupported(args),
             Catch::Contains("hierarchical_refuser across instances: refuser runs nothing"));
}

TEST_CASE("embedding moves a sub-schedule's peers, buffers, tags and phases", "[algorithms][hierarchical]") {
  // Rank 1 of a 3-rank mesh all-reduce of 4 elements: exchanges, then one reduction.
  algo::Mesh mesh;
  const algo::Schedule sub = mesh.build(algo::CollectiveArgs{Collective::AllReduce, 1, 3, 4});
  algo::Schedule host;
  host.nranks = 9;
  host.scratchElements = 6;
  host.phases.resize(1);
  host.phases[0].channels.resize(1);
  algo::Embedding where;
  where.ranks = {2, 5, 8};
  where.send = algo::Span{algo::kScratch, 2};
  where.recv = algo::Span{algo::kRecv, 10};
  where.scratch = algo::Span{algo::kScratch, 6};
  where.tagOffset = 1000;
  where.firstPhase = 1;
  algo::embed(sub, where, host);
  auto moved = [](algo::Span s) {
    switch (s.buffer) {
      case algo::kSend:
        return algo::Span{algo::kScratch, 2 + s.offset};
      case algo::kRecv:
        return algo::Span{algo::kRecv, 10 + s.offset};
      case algo::kScratch:
        return algo::Span{algo::kScratch, 6 + s.offset};
      default:
        return s;
    }
  };

  REQUIRE(host.phases.size() == 1 + sub.phases.size());
  CHECK(host.phases[0].channels.size() == 1);
  CHECK(host.scratchElements == 6 + sub.scratchElements);
  for (size_t k = 0; k < sub.phases.size(); ++k) {
    REQUIRE(host.phases[1 + k].channels.size() == sub.phases[k].channels.size());
    for (size_t c = 0; c < sub.phases[k].channels.size(); ++c) {
      const auto& before = sub.phases[k].channels[c].steps;
      const auto& after = host.phases[1 + k].channels[c].steps;
      REQUIRE(after.size() == before.size());
      for (size_t i = 0; i < before.size(); ++i) {
        const int rankOf[] = {2, 5, 8};
        if (before[i].sendPeer >= 0) {
          CHECK(after[i].sendPeer == rankOf[before[i].sendPeer]);
          CHECK(after[i].sendTag == before[i].sendTag + 1000);
        }
        if (before[i].recvPeer >= 0) {
          CHECK(after[i].recvPeer == rankOf[before[i].recvPeer]);
          CHECK(after[i].recvTag == before[i].recvTag + 1000);
        }
        for (size_t s = 0; s < before[i].srcs.size(); ++s) CHECK(after[i].srcs[s] == moved(before[i].srcs[s]));
        CHECK(after[i].dst == moved(before[i].dst));
      }
    }
  }
  where.tagOffset = algo::kTagSpace - 1;
  CHECK_THROWS_WITH(algo::embed(sub, where, host), Catch::Contains("tag"));
}
