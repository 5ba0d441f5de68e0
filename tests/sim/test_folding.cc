// The folded engine: the cost model over the first instance's schedules, on
// links folded onto the first instance, equals the cost model over every
// rank (the tuner's own prediction), for every algorithm that can run on a
// job of several instances, on four shipped topologies.
#include <catch2/catch.hpp>
#include <regex>
#include <set>

#include "algorithms/algorithm_filter.h"
#include "algorithms/tuner.h"
#include "base/error.h"
#include "sim/folding.h"
#include "sim/machine.h"
#include "sim/simulation.h"

using namespace trnccl;

namespace {

algo::CollectiveArgs allReduceOn(const sim::Machine& m, size_t count) {
  algo::CollectiveArgs args;
  args.nranks = m.ranks();
  args.count = count;
  args.layout = &m.layout();
  return args;
}

// "link node3 efa6 out" -> "link node* efa* out": instances are alike, and
// so are the NICs the two directions of a bidirectional ring take, so which
// one is named is a tie broken by rounding.
std::string anyInstance(const std::string& bound) {
  return std::regex_replace(std::regex_replace(bound, std::regex("node[0-9]+"), "node*"), std::regex("efa[0-9]+"),
                            "efa*");
}

}  // namespace

TEST_CASE("folding: one instance, or instances placed differently, do not fold", "[sim][folding]") {
  CHECK_FALSE(sim::foldingOf(sim::Machine("trn1.32xlarge", {})).has_value());
  // Instance 0 gets NeuronCores 0 and 1, instance 1 cores 2 and 3 of its own.
  CHECK_FALSE(sim::foldingOf(sim::Machine("trn1.2xlarge:2", {}, 4, "0,1,3,2")).has_value());
  const auto folding = sim::foldingOf(sim::Machine("trn1.32xlarge:4", {}));
  REQUIRE(folding.has_value());
  CHECK(folding->ranksPerInstance == 32);
}

TEST_CASE("folding: whenever it folds, it equals the cost model over every rank", "[sim][folding]") {
  for (const char* topology : {"trn1.2xlarge:6", "trn1.2xlarge:5", "trn1.32xlarge:3", "trn1n.32xlarge:2",
                               "trn2.48xlarge:2", "trn1n.32xlarge:3"}) {
    const sim::Machine m(topology, {});
    const auto folding = sim::foldingOf(m);
    REQUIRE(folding.has_value());
    const auto folded = sim::foldedNetwork(m.network(), *folding);
    std::set<std::string> foldedAlgorithms;
    for (const std::string& name : algo::Tuner::algorithmNames()) {
      const algo::Tuner tuner(algo::AlgorithmFilter(name, "--algo", algo::Tuner::algorithmNames()), m.network(),
                              &m.layout());
      for (size_t count : {size_t{256}, size_t{1} << 18, size_t{1} << 24}) {
        const algo::CollectiveArgs args = allReduceOn(m, count);
        const algo::Algorithm* a = nullptr;
        try {
          a = &tuner.choose(args);
        } catch (const Error&) {
          continue;  // cannot run on this machine (mesh on many ranks)
        }
        INFO(topology << " " << name << " " << count << " elements");
        const algo::Prediction all = tuner.predict(*a, args);
        algo::Prediction one;
        try {
          one = sim::predictFolded(*a, args, *folded, *folding);
        } catch (const Error& e) {
          CHECK_THAT(e.what(), Catch::Contains(name + " on ") && Catch::Contains("does not treat the instances alike"));
          continue;
        }
        foldedAlgorithms.insert(name);
        // Blocks differ by one element between ranks, which a rank of
        // another instance may carry: up to a few parts in 100,000.
        CHECK(one.seconds == Approx(all.seconds).epsilon(1e-4));
        CHECK(anyInstance(one.bound) == anyInstance(all.bound));
      }
    }
    INFO(topology);
    CHECK(foldedAlgorithms.count("ring") == 1);
    CHECK(foldedAlgorithms.count("bidir_ring") == 1);
    CHECK(foldedAlgorithms.count("hierarchical") == 1);
  }
}

TEST_CASE("folding: RDH on a rank count that is not a power of two does not fold", "[sim][folding]") {
  // 96 ranks: RDH's 32 extra ranks are the first ones.
  const sim::Machine m("trn1.32xlarge:3", {});
  sim::Call call;
  call.count = 1 << 20;
  call.algorithm = "rdh";
  call.engine = sim::Engine::Folded;
  CHECK_THROWS_WITH(sim::simulate(m, call), Catch::Contains("rdh on 96 ranks does not treat the instances alike"));
  // The tuner's choice skips it.
  call.algorithm = "auto";
  CHECK(sim::simulate(m, call).algorithm != std::string("rdh"));
}

TEST_CASE("folding: each link of the first instance carries what the event engine puts on it", "[sim][folding]") {
  const sim::Machine m("trn1.2xlarge:4", {});
  sim::Call call;
  call.count = size_t{1} << 20;
  call.algorithm = "ring";
  call.engine = sim::Engine::EventDriven;
  const sim::Prediction events = sim::simulate(m, call);
  call.engine = sim::Engine::Folded;
  const sim::Prediction folded = sim::simulate(m, call);
  CHECK(folded.engine == sim::Engine::Folded);
  const auto folding = sim::foldingOf(m);
  REQUIRE(folded.linkBytes.size() == static_cast<size_t>(folding->linksPerInstance));
  double efaBytes = 0;
  for (size_t l = 0; l < folded.linkBytes.size(); ++l) {
    INFO(m.network().linkName(static_cast<int>(l)));
    CHECK(folded.linkBytes[l] == Approx(events.linkBytes[l]));
    if (m.network().linkName(static_cast<int>(l)).find("efa") != std::string::npos) efaBytes += folded.linkBytes[l];
  }
  // A ring all-reduce of 8 ranks: each crossing moves 2 x 7/8 of the data
  // over one NIC out of the instance and one into it.
  CHECK(efaBytes == Approx(2 * 2 * 7.0 / 8 * (size_t{4} << 20)));
}

TEST_CASE("folding: 65,536 ranks (2,048 trn1.32xlarge) simulate, and the unfolded engines refuse them",
          "[sim][folding]") {
  const sim::Machine m("trn1.32xlarge:2048", {});
  REQUIRE(m.ranks() == 65536);
  sim::Call call;
  call.count = size_t{1} << 28;
  call.algorithm = "hierarchical";
  const sim::Prediction p = sim::simulate(m, call);
  CHECK(p.engine == sim::Engine::Folded);
  CHECK(p.algorithm == std::string("hierarchical"));
  CHECK(p.seconds > 0);
  call.engine = sim::Engine::EventDriven;
  CHECK_THROWS_WITH(sim::simulate(m, call),
                    Catch::Contains("at most 4096 ranks") && Catch::Contains("--engine folded"));
  call.engine = sim::Engine::Folded;
  call.stragglers = {{3, 1e-6, "3:+1us"}};
  CHECK_THROWS_WITH(sim::simulate(m, call), Catch::Contains("--straggler"));
}

TEST_CASE("folding: --engine folded on a machine that does not fold names why", "[sim][folding]") {
  sim::Call call;
  call.count = 1024;
  call.engine = sim::Engine::Folded;
  CHECK_THROWS_WITH(sim::simulate(sim::Machine("trn1.32xlarge", {}), call),
                    Catch::Contains("--engine folded") && Catch::Contains("cannot be folded"));
}

TEST_CASE("folding: prices kept across a sweep's calls are each algorithm's and size's own", "[sim][folding]") {
  const sim::Machine m("trn1.32xlarge:4", {});
  const auto folding = sim::foldingOf(m);
  REQUIRE(folding.has_value());
  sim::FoldedPricing kept(m.network(), *folding);
  // The rows of a sweep: each algorithm at two sizes, then auto, which prices
  // every candidate again through the same prices.
  for (const char* name : {"ring", "torus2d", "hierarchical", "auto"})
    for (size_t count : {size_t{1} << 12, size_t{1} << 22}) {
      sim::Call call;
      call.count = count;
      call.algorithm = name;
      call.engine = sim::Engine::Folded;
      const sim::Prediction shared = sim::simulate(m, call, &kept);
      const sim::Prediction alone = sim::simulate(m, call);  // priced afresh
      INFO(name << " " << count << " elements");
      CHECK(shared.algorithm == alone.algorithm);
      CHECK(shared.seconds == alone.seconds);
      CHECK(shared.bound == alone.bound);
    }
}

TEST_CASE("folding: an algorithm whose instances differ is priced by its slowest probed instance, near every rank's",
          "[sim][folding]") {
  // 40 trn1.32xlarge, 1,280 ranks (auto folds above 1,024): a 2D torus
  // all-reduce of 32 floats has fewer elements than ranks, so the
  // instances do not do alike (the sweep's rows from 32 to 512 bytes).
  const sim::Machine m("trn1.32xlarge:40", {});
  const auto folding = sim::foldingOf(m);
  REQUIRE(folding.has_value());
  const algo::Tuner tuner(algo::AlgorithmFilter("torus2d", "--algo", algo::Tuner::algorithmNames()), m.network(),
                          &m.layout());
  const algo::CollectiveArgs args = allReduceOn(m, 32);
  const algo::Algorithm& torus = tuner.choose(args);
  const auto folded = sim::foldedNetwork(m.network(), *folding);
  REQUIRE_THROWS_WITH(sim::predictFolded(torus, args, *folded, *folding),
                      Catch::Contains("does not treat the instances alike"));
  sim::Call call;
  call.count = 32;
  call.algorithm = "torus2d";
  const sim::Prediction slowest = sim::simulate(m, call);
  CHECK(slowest.engine == sim::Engine::Folded);
  CHECK_THAT(slowest.bound, Catch::Contains("instances unlike: the slowest of 4 priced as all"));
  // The cost model over all 1,280 ranks, the reference folding stands for.
  const algo::Prediction all = tuner.predict(torus, args);
  CHECK(slowest.seconds == Approx(all.seconds).epsilon(0.10));
  // Folding named by --engine still refuses it.
  call.engine = sim::Engine::Folded;
  CHECK_THROWS_WITH(sim::simulate(m, call), Catch::Contains("does not treat the instances alike"));
}
