// Machines and knobs: what-if settings change the topology as they say, and
// anything that cannot be used is an error naming it.
#include <array>
#include <catch2/catch.hpp>
#include <string>

#include "base/error.h"
#include "sim/knobs.h"
#include "sim/machine.h"
#include "sim/simulation.h"
#include "topology/topology.h"

using namespace trnccl;

TEST_CASE("sim knobs: each changes the topology as it says", "[sim]") {
  const topo::Topology original = topo::loadTopology("trn1.32xlarge");
  sim::Knobs knobs;
  for (const char* k : {"link.bandwidth=2x", "link.latency=0.5x", "efa.gbps=3200", "efa.latency=5", "nodes=64"})
    sim::setKnob(knobs, k);
  topo::Topology t = original;
  sim::applyKnobs(knobs, t);
  REQUIRE(t.links.size() == original.links.size());
  CHECK(t.links[0].bytesPerSec == 2 * original.links[0].bytesPerSec);
  CHECK(t.links[0].latencySec == Approx(original.links[0].latencySec / 2));
  CHECK(t.nics[0].bytesPerSec == Approx(3200e9 / 8 / static_cast<double>(t.nics.size())));
  CHECK(t.efaLatencySec == Approx(5e-6));
  CHECK(t.nodes == 64);
  sim::Knobs absolute;
  sim::setKnob(absolute, "link.bandwidth=50");
  t = original;
  sim::applyKnobs(absolute, t);
  CHECK(t.links[0].bytesPerSec == 50e9);
}

TEST_CASE(
    "sim knobs: launch, dma.bandwidth, dma.message and reduce.bandwidth set the collective engine in us, GB/s, us "
    "and GB/s; reduce.slices the runtime's",
    "[sim]") {
  const topo::Topology original = topo::loadTopology("trn1.32xlarge");
  REQUIRE(original.engine.dmaBytesPerSec > 0);  // the file models the engine: the knobs replace its figures
  sim::Knobs knobs;
  for (const char* k : {"launch=30", "dma.bandwidth=200", "dma.message=1.5", "reduce.bandwidth=400", "reduce.slices=3"})
    sim::setKnob(knobs, k);
  topo::Topology t = original;
  sim::applyKnobs(knobs, t);
  CHECK(t.engine.launchSec == Approx(30e-6).epsilon(1e-12));
  CHECK(t.engine.dmaBytesPerSec == Approx(200e9).epsilon(1e-12));
  CHECK(t.engine.dmaMessageSec == Approx(1.5e-6).epsilon(1e-12));
  CHECK(t.engine.reduceBytesPerSec == Approx(400e9).epsilon(1e-12));
  CHECK(t.engine.sources == std::array<std::string, 4>{"--set launch", "--set dma.bandwidth", "--set dma.message",
                                                       "--set reduce.bandwidth"});
  CHECK(t.engine.reduceSlices == 3);
  CHECK(t.engine.reduceSlicesSource == "--set reduce.slices");
  const sim::Machine machine("trn1.32xlarge", knobs);
  CHECK(machine.network().launchSec() == Approx(30e-6).epsilon(1e-12));
  CHECK(machine.network().reduceBytesPerSec() == Approx(400e9).epsilon(1e-12));
  CHECK(machine.network().reduceSlices() == 3);
  sim::Knobs bad;
  CHECK_THROWS_WITH(sim::setKnob(bad, "reduce.slices=0.5"), Catch::Contains("1 slice or more"));

  SECTION("a figure no knob sets keeps the file's value and source") {
    sim::Knobs launchOnly;
    sim::setKnob(launchOnly, "launch=7");
    t = original;
    sim::applyKnobs(launchOnly, t);
    CHECK(t.engine.launchSec == Approx(7e-6).epsilon(1e-12));
    CHECK(t.engine.sources[0] == "--set launch");
    CHECK(t.engine.dmaBytesPerSec == original.engine.dmaBytesPerSec);
    CHECK(t.engine.dmaMessageSec == original.engine.dmaMessageSec);
    CHECK(t.engine.sources[1] == original.engine.sources[1]);
    CHECK(t.engine.sources[2] == original.engine.sources[2]);
  }
  SECTION("0 is accepted: not modelled") {
    sim::Knobs none;
    for (const char* k : {"launch=0", "dma.bandwidth=0", "dma.message=0"}) sim::setKnob(none, k);
    t = original;
    sim::applyKnobs(none, t);
    CHECK(t.engine.launchSec == 0);
    CHECK(t.engine.dmaBytesPerSec == 0);
    CHECK(t.engine.dmaMessageSec == 0);
    CHECK(sim::Machine("trn1.32xlarge", none).network().launchSec() == 0);
  }
  SECTION("dma.bandwidth=0: no DMA links, as many links as without the section") {
    // Per instance: both directions of the 4x4 torus's 32 NeuronLinks, one
    // on-chip link per chip (16) and an out and an in link per NIC (8);
    // DMA engines add one link per chip.
    constexpr int kLinksAlone = 2 * 32 + 16 + 2 * 8, kChips = 16;
    CHECK(sim::Machine("trn1.32xlarge", {}).fabric().linkCount() == kLinksAlone + kChips);
    sim::Knobs noDma;
    sim::setKnob(noDma, "dma.bandwidth=0");
    const sim::Machine machine("trn1.32xlarge", noDma);
    CHECK(machine.fabric().linkCount() == kLinksAlone);
    for (int l = 0; l < machine.fabric().linkCount(); ++l)
      CHECK_THAT(machine.fabric().link(l).name, !Catch::EndsWith(" dma"));
    CHECK(machine.fabric().route({0, 0, 0}, {0, 1, 0}).issueLink == -1);
  }
  SECTION("a negative or non-numeric value is an error naming the knob") {
    sim::Knobs k;
    for (const char* bad : {"launch=-1", "launch=abc", "dma.bandwidth=-0.5", "dma.bandwidth=", "dma.message=-2",
                            "dma.message=1us", "launch=nan"}) {
      CAPTURE(bad);
      const std::string text(bad);
      const std::string knob = text.substr(0, text.find('='));
      CHECK_THROWS_WITH(sim::setKnob(k, bad),
                        Catch::Contains("--set " + knob + "='") && Catch::Contains("expected a non-negative number"));
    }
  }
}

TEST_CASE("sim knobs: twice the link bandwidth halves the link part of a ring", "[sim]") {
  // 16 ranks, one per chip, in the torus's ring order: every hop is one
  // NeuronLink. The ring's 2(n-1) hops carry a block each; the latency and
  // the reductions stay, the bytes on the links take half as long.
  constexpr int n = 16;
  sim::Call call;
  call.count = size_t{16} << 20;
  call.algorithm = "ring";
  sim::Knobs fast;
  sim::setKnob(fast, "link.bandwidth=2x");
  const double base = sim::simulate(sim::Machine("trn1.32xlarge", {}, n, "chip"), call).seconds;
  const double doubled = sim::simulate(sim::Machine("trn1.32xlarge", fast, n, "chip"), call).seconds;
  const double block = call.count / n * 4.0, linkBytesPerSec = topo::loadTopology("trn1.32xlarge").links[0].bytesPerSec;
  CHECK(base - doubled == Approx(2 * (n - 1) * block / linkBytesPerSec / 2).epsilon(1e-6));
}

TEST_CASE("sim: bad knobs, topologies, rank counts and algorithms are errors naming them", "[sim]") {
  sim::Knobs k;
  CHECK_THROWS_WITH(sim::setKnob(k, "link.speed=2"), Catch::Contains("unknown knob 'link.speed'"));
  CHECK_THROWS_WITH(sim::setKnob(k, "link.bandwidth=-1"), Catch::Contains("link.bandwidth='-1'"));
  CHECK_THROWS_WITH(sim::setKnob(k, "nodes=2.5"), Catch::Contains("nodes='2.5'"));
  CHECK_THROWS_WITH(sim::setKnob(k, "efa.gbps"), Catch::Contains("expected name=value"));
  CHECK_THROWS_WITH(sim::Machine("trn9.huge", {}), Catch::Contains("unknown topology 'trn9.huge'"));
  CHECK_THROWS_WITH(sim::Machine("trn1.2xlarge", {}, 3), Catch::Contains("--ranks 3"));
  sim::Knobs efa;
  sim::setKnob(efa, "efa.gbps=100");
  CHECK_THROWS_WITH(sim::Machine("inf2.48xlarge", efa), Catch::Contains("has no EFA NICs"));
  const sim::Machine machine("trn1.32xlarge", {}, 8);
  sim::Call call;
  call.count = 1024;
  call.algorithm = "torus9";
  CHECK_THROWS_WITH(sim::simulate(machine, call), Catch::Contains("--algo"));
  CHECK_THROWS_WITH(sim::parseEngine("fast"), Catch::Contains("--engine 'fast'"));
}
