// The tuner prunes candidates by a lower bound before pricing them: its
// choice must be the one pricing every candidate makes (Pruning::Off, the
// exhaustive reference), on every shipped topology and on jobs of 1,024 and
// 65,536 ranks, and the bound must never exceed the price.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/algorithm_filter.h"
#include "algorithms/registry.h"
#include "algorithms/tuner.h"
#include "sim/folding.h"
#include "sim/machine.h"
#include "topology/topology.h"

using namespace trnccl;
using algo::Collective;

namespace {

algo::CollectiveArgs callOn(const sim::Machine& m, Collective c, size_t count) {
  algo::CollectiveArgs args;
  args.collective = c;
  args.nranks = m.ranks();
  args.count = count;
  args.layout = &m.layout();
  args.v = algo::evenBlocks(c, count, m.ranks());
  return args;
}

algo::Tuner tunerOn(const sim::Machine& m, algo::Pruning pruning, algo::Tuner::Predictor predictor = nullptr) {
  return algo::Tuner(algo::AlgorithmFilter("auto", "--algo", algo::Tuner::algorithmNames()), m.network(), &m.layout(),
                     std::move(predictor), pruning);
}

// Both tuners' picks for `collective` at every count of `counts`.
void checkSameChoice(const sim::Machine& m, const algo::Tuner& pruned, const algo::Tuner& exhaustive,
                     const std::vector<Collective>& collectives, const std::vector<size_t>& counts) {
  for (Collective c : collectives)
    for (size_t count : counts) {
      INFO(m.describe() << " " << algo::collectiveName(c) << " count " << count);
      CHECK(std::string(pruned.choose(callOn(m, c, count)).name()) == exhaustive.choose(callOn(m, c, count)).name());
    }
}

}  // namespace

TEST_CASE("tuner pruning: the choice equals pricing every candidate on every shipped topology", "[sim][tuner]") {
  const std::vector<Collective> collectives{Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
                                            Collective::Broadcast, Collective::AllToAll};
  std::vector<std::string> machines;
  for (const std::string& name : topo::shippedTopologyNames()) {
    machines.push_back(name);
    if (!topo::loadTopology(name).nics.empty()) machines.push_back(name + ":2");  // joined over EFA
  }
  for (const std::string& name : machines) {
    const sim::Machine m(name, {});
    checkSameChoice(m, tunerOn(m, algo::Pruning::On), tunerOn(m, algo::Pruning::Off), collectives,
                    {1, 64, 4096, 256 << 10, 16 << 20});
  }
}

TEST_CASE("tuner pruning: no candidate's lower bound exceeds its price", "[sim][tuner]") {
  for (const char* topology : {"trn1.32xlarge", "trn2-ultraserver", "inf2.48xlarge", "trn1.2xlarge:3"}) {
    const sim::Machine m(topology, {});
    const algo::Tuner tuner = tunerOn(m, algo::Pruning::Off);
    for (const algo::RegisteredAlgorithm& registered : algo::registeredAlgorithms()) {
      const auto algorithm = registered.make();
      for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::Broadcast})
        for (size_t count : {size_t{1}, size_t{4096}, size_t{4} << 20}) {
          const algo::CollectiveArgs args = callOn(m, c, count);
          if (!algorithm->whyUnsupported(args).empty()) continue;
          INFO(topology << " " << algorithm->name() << " " << algo::collectiveName(c) << " count " << count);
          const double bound = tuner.lowerBound(*algorithm, args), price = tuner.predict(*algorithm, args).seconds;
          CHECK(bound <= price * (1 + 1e-12));
        }
    }
  }
}

TEST_CASE("tuner pruning: the choice equals pricing every candidate on 1,024 ranks", "[sim][tuner]") {
  const sim::Machine m("trn1.32xlarge:32", {});
  checkSameChoice(m, tunerOn(m, algo::Pruning::On), tunerOn(m, algo::Pruning::Off),
                  {Collective::AllReduce, Collective::AllGather}, {2, 4096, 1 << 20, 64 << 20});
}

TEST_CASE("tuner pruning: the choice equals pricing every candidate on 65,536 ranks, folded", "[sim][tuner]") {
  const sim::Machine m("trn1.2xlarge:32768", {});
  REQUIRE(m.ranks() == 65536);
  const auto folding = sim::foldingOf(m);
  REQUIRE(folding.has_value());
  // Separate prices, so neither tuner reads what the other priced.
  sim::FoldedPricing forPruned(m.network(), *folding), forExhaustive(m.network(), *folding);
  checkSameChoice(m, tunerOn(m, algo::Pruning::On, forPruned.predictor()),
                  tunerOn(m, algo::Pruning::Off, forExhaustive.predictor()), {Collective::AllReduce},
                  {2, 1024, 1 << 18, 1 << 26});
}
