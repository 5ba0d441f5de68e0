// The simulator's what-if studies on shipped machines: a rank that enters
// late (--straggler) and a NeuronLink that failed (--fail-link).
#include <catch2/catch.hpp>
#include <map>

#include "sim/failed_links.h"
#include "sim/machine.h"
#include "sim/simulation.h"
#include "sim/stragglers.h"

using namespace trnccl;

namespace {

sim::Knobs failing(std::vector<sim::ChipPair> links) {
  sim::Knobs knobs;
  knobs.failedLinks = std::move(links);
  return knobs;
}

// The chips a route visits after `from`, read off its links' names
// ("node0 chip3->chip2").
std::vector<int> routeChips(const sim::Machine& m, int from, int to) {
  std::vector<int> chips;
  for (int l : m.fabric().route({0, from, 0}, {0, to, 0}).links) {
    const std::string& name = m.fabric().link(l).name;
    if (name.find("->") != std::string::npos) chips.push_back(std::stoi(name.substr(name.rfind("chip") + 4)));
  }
  return chips;
}

// Bytes per link, by name.
std::map<std::string, double> bytesByLink(const sim::Machine& m, const sim::Prediction& p) {
  std::map<std::string, double> bytes;
  for (int l = 0; l < m.network().linkCount(); ++l) bytes[m.network().linkName(l)] = p.linkBytes.at(l);
  return bytes;
}

sim::Call torus2d(size_t count, sim::Engine engine) {
  sim::Call call;
  call.count = count;
  call.algorithm = "torus2d";
  call.engine = engine;
  return call;
}

}  // namespace

TEST_CASE("sim stragglers: RANK:+TIME with ns, us, ms or s, comma-separated", "[sim]") {
  const auto late = sim::parseStragglers("5:+50us,0:+2ms,31:+1.5s,7:+250ns");
  REQUIRE(late.size() == 4);
  CHECK(late[0].rank == 5);
  CHECK(late[0].delaySec == Approx(50e-6));
  CHECK(late[1].delaySec == Approx(2e-3));
  CHECK(late[2].rank == 31);
  CHECK(late[2].delaySec == Approx(1.5));
  CHECK(late[3].delaySec == Approx(250e-9));
  CHECK(late[3].spec == "7:+250ns");
  const std::vector<double> entry = sim::entryTimes(late, 32);
  CHECK(entry[5] == late[0].delaySec);
  CHECK(entry[1] == 0);
  for (const char* bad :
       {"5:50us", "5+50us", "x:+1us", "-1:+1us", "5:+", "5:+50", "5:+50h", "5:+-1us", "5:+inf us", "5:+50us,"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH(sim::parseStragglers(bad), Catch::Contains("--straggler '"));
  }
  CHECK_THROWS_WITH(sim::parseStragglers("5:+50us,9:+1hr"), Catch::Contains("--straggler '9:+1hr'"));
  CHECK_THROWS_WITH(sim::entryTimes(sim::parseStragglers("32:+1us"), 32),
                    Catch::Contains("--straggler '32:+1us': rank 32 out of range") && Catch::Contains("32 ranks"));
  CHECK_THROWS_WITH(sim::entryTimes(sim::parseStragglers("3:+1us,3:+2us"), 32),
                    Catch::Contains("'3:+2us': rank 3 is given more than once"));
}

TEST_CASE("sim stragglers: a late rank on the critical path adds its delay, and one not on this machine is an error",
          "[sim]") {
  // At 1 KiB the 2D torus is latency-bound and every rank's chain is as long
  // as every other's: whichever rank is late delays the end by its delay
  // (within a nanosecond: the event engine's transfers that would have
  // shared a link with the late rank's run alone). One rank per chip: two
  // ranks of a chip share its DMA engines, so the one on time would go
  // faster while the other is late.
  // Under the 2023 runtime, whose launch and per-message figures make the
  // call on time about 140 us.
  sim::Knobs era2023;
  era2023.runtime = "2023";
  const sim::Machine machine("trn1.32xlarge", era2023, 16, "chip");
  for (sim::Engine engine : {sim::Engine::EventDriven, sim::Engine::Analytical}) {
    CAPTURE(sim::engineName(engine));
    sim::Call call = torus2d(256, engine);
    const double base = sim::simulate(machine, call).seconds;
    // 200 us: at least half the late call (the launch and the DMA engines'
    // issuing make the call on time about 140 us), so it names the bound.
    call.stragglers = sim::parseStragglers("5:+200us");
    const sim::Prediction late = sim::simulate(machine, call);
    CHECK(late.seconds == Approx(base + 200e-6).margin(1e-9));
    CHECK(late.bound == "straggler rank 5");
    call.stragglers = sim::parseStragglers("40:+1us");
    CHECK_THROWS_WITH(sim::simulate(machine, call), Catch::Contains("--straggler '40:+1us'"));
  }
}

TEST_CASE("sim failed links: routes go around the failed link, shortest first, and the rest stay as they were",
          "[sim]") {
  // trn1.32xlarge: a 4x4 torus, chip = x + 4y. With 0-1 down, 0 reaches 1
  // in three hops; breadth-first, lowest chip first, goes 0 -> 3 -> 2 -> 1.
  const sim::Machine intact("trn1.32xlarge", {});
  const sim::Machine degraded("trn1.32xlarge", failing({{1, 0}}));
  CHECK(degraded.topology().links.size() == intact.topology().links.size() - 1);
  CHECK(routeChips(intact, 0, 1) == std::vector<int>{1});
  CHECK(routeChips(degraded, 0, 1) == std::vector<int>{3, 2, 1});
  CHECK(routeChips(degraded, 1, 0) == std::vector<int>{2, 3, 0});
  // Dimension order (x first) would cross 0-1: the detour has as few hops.
  CHECK(routeChips(intact, 0, 5) == std::vector<int>{1, 5});
  CHECK(routeChips(degraded, 0, 5) == std::vector<int>{4, 5});
  // A route that never crossed it keeps its dimension order.
  CHECK(routeChips(degraded, 2, 7) == routeChips(intact, 2, 7));
  CHECK(routeChips(degraded, 15, 10) == routeChips(intact, 15, 10));
  const topo::Route detour = degraded.fabric().route({0, 0, 0}, {0, 1, 0});
  CHECK(detour.latencySec == Approx(3 * intact.topology().links[0].latencySec));
}

TEST_CASE("sim failed links: the 2D torus is slower, and the failed link's bytes ride the detour", "[sim]") {
  const sim::Machine intact("trn1.32xlarge", {});
  const sim::Machine degraded("trn1.32xlarge", failing({{0, 1}}));
  for (sim::Engine engine : {sim::Engine::EventDriven, sim::Engine::Analytical}) {
    CAPTURE(sim::engineName(engine));
    const sim::Call call = torus2d(size_t{16} << 20, engine);
    const sim::Prediction before = sim::simulate(intact, call), after = sim::simulate(degraded, call);
    CHECK(after.seconds > 1.05 * before.seconds);
    CHECK_THAT(after.bound, Catch::Contains("link node0 chip"));
    auto was = bytesByLink(intact, before), is = bytesByLink(degraded, after);
    CHECK(is.count("node0 chip0->chip1") == 0);
    CHECK(is.count("node0 chip1->chip0") == 0);
    // 0 -> 1 now goes 0 -> 3 -> 2 -> 1, and 1 -> 0 the way back.
    for (const char* hop : {"node0 chip0->chip3", "node0 chip3->chip2", "node0 chip2->chip1"}) {
      CAPTURE(hop);
      CHECK(is[hop] == was[hop] + was["node0 chip0->chip1"]);
    }
    for (const char* hop : {"node0 chip1->chip2", "node0 chip2->chip3", "node0 chip3->chip0"}) {
      CAPTURE(hop);
      CHECK(is[hop] == was[hop] + was["node0 chip1->chip0"]);
    }
    CHECK(is["node0 chip5->chip6"] == was["node0 chip5->chip6"]);
  }
}

TEST_CASE("sim failed links: a bad pair, a link that is not there and a cut machine are errors naming --fail-link",
          "[sim]") {
  CHECK(sim::parseFailedLink("3-7") == sim::ChipPair{3, 7});
  for (const char* bad : {"3", "3-", "-7", "3-7-1", "a-b", "3-3", "3:7", "3-7 "}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH(sim::parseFailedLink(bad), Catch::Contains(std::string("--fail-link '") + bad + "'"));
  }
  CHECK_THROWS_WITH(sim::Machine("trn1.32xlarge", failing({{0, 5}})),
                    Catch::Contains("--fail-link 0-5: trn1.32xlarge has no NeuronLink between chip 0 and chip 5"));
  CHECK_THROWS_WITH(sim::Machine("trn1.32xlarge", failing({{0, 99}})), Catch::Contains("--fail-link 0-99"));
  CHECK_THROWS_WITH(sim::Machine("trn1.32xlarge", failing({{0, 1}, {1, 0}})), Catch::Contains("--fail-link 1-0"));
  // A ring of 12 survives one cut, not two.
  CHECK_NOTHROW(sim::Machine("inf2.48xlarge", failing({{0, 1}})));
  CHECK_THROWS_WITH(
      sim::Machine("inf2.48xlarge", failing({{0, 1}, {6, 7}})),
      Catch::Contains("--fail-link 6-7: with it failed, chip") && Catch::Contains("has no NeuronLink path to chip 6"));
}
