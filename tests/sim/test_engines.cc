// Both engines on hand-built networks, where every expected time is worked
// out here on paper, and against each other on every shipped topology.
#include <catch2/catch.hpp>
#include <cmath>

#include "algorithms/registry.h"
#include "algorithms/ring.h"
#include "sim/analytical_engine.h"
#include "sim/event_engine.h"
#include "sim/machine.h"
#include "sim/simulation.h"
#include "tests/algorithms/hand_network.h"
#include "topology/topology.h"

using namespace trnccl;
using test::HandNetwork;

namespace {

std::vector<algo::Schedule> ringAllReduce(int n, size_t count) {
  std::vector<algo::Schedule> all;
  algo::CollectiveArgs args;
  args.nranks = n;
  args.count = count;
  for (int r = 0; r < n; ++r) {
    args.rank = r;
    all.push_back(algo::Ring().build(args));
  }
  return all;
}

// A schedule of one channel: rank `rank` runs `steps` in order.
algo::Schedule handSchedule(int rank, int nranks, std::vector<algo::Step> steps) {
  algo::Schedule s;
  s.rank = rank;
  s.nranks = nranks;
  s.phases.push_back({{algo::Channel{std::move(steps)}}});
  return s;
}

algo::Step sendTo(int peer, uint32_t tag, size_t count) {
  algo::Step s;
  s.sendPeer = peer, s.sendTag = tag, s.count = count, s.srcs = {{algo::kSend, 0}};
  return s;
}

algo::Step receiveFrom(int peer, uint32_t tag, size_t count) {
  algo::Step s;
  s.recvPeer = peer, s.recvTag = tag, s.count = count, s.dst = {algo::kRecv, 0};
  return s;
}

}  // namespace

// A ring of n ranks on n links (rank r sends to r + 1 over link "l<r>").
struct HandRing {
  static constexpr int n = 4;
  static constexpr double B = 10e9, a = 2e-6, R = 50e9;
  static constexpr size_t count = 4 << 20;  // floats
  static constexpr double block = count / n * 4.0;
  // 2(n-1) hops of alpha + block/B and (n-1) reductions of a block.
  static constexpr double seconds = 2 * (n - 1) * (a + block / B) + (n - 1) * block / R;
  HandNetwork net;
  std::vector<algo::Schedule> all = ringAllReduce(n, count);
  HandRing() {
    for (int r = 0; r < n; ++r) net.route(r, (r + 1) % n, {net.addLink("l" + std::to_string(r), B)}, a);
    net.reduceRate = R;
  }
};

TEST_CASE("sim: a 4-rank ring all-reduce takes 2(n-1) hops of alpha + block/B and (n-1) reductions in both engines",
          "[sim]") {
  const HandRing ring;
  constexpr int n = HandRing::n;
  const sim::Prediction events = sim::runEvents(ring.all, ring.net);
  CHECK(events.seconds == Approx(HandRing::seconds).epsilon(1e-9));
  CHECK(events.transfers == static_cast<size_t>(n * 2 * (n - 1)));
  const sim::Prediction analytical = sim::runAnalytical(ring.all, ring.net);
  CHECK(analytical.seconds == Approx(HandRing::seconds).epsilon(1e-9));
  // Every link carries 2(n-1) blocks: 2(n-1)/n of the data, in both engines.
  for (const sim::Prediction* o : {&events, &analytical})
    for (int l = 0; l < n; ++l) CHECK(o->linkBytes.at(l) == 2.0 * (n - 1) / n * HandRing::count * 4);
}

TEST_CASE("sim: a rank that enters a ring late delays it by exactly that much in both engines", "[sim]") {
  // Every rank's last step ends a chain of 2(n-1) hops that starts at some
  // rank's first send, all of the same length: a late rank's chain ends late
  // by its delay, and no other chain grows past it.
  const HandRing ring;
  for (const double late : {7e-6, 3 * HandRing::seconds}) {
    CAPTURE(late);
    const std::vector<double> entry{0, 0, late, 0};
    const sim::Prediction events = sim::runEvents(ring.all, ring.net, entry);
    const sim::Prediction analytical = sim::runAnalytical(ring.all, ring.net, entry);
    CHECK(events.seconds == Approx(HandRing::seconds + late).epsilon(1e-9));
    CHECK(analytical.seconds == Approx(HandRing::seconds + late).epsilon(1e-9));
    // The delay is the bound once it is most of the time.
    const std::string bound = late > HandRing::seconds ? "straggler rank 2" : "link l0";
    CHECK(events.bound == bound);
    CHECK(analytical.bound == bound);
  }
}

TEST_CASE("sim: two transfers on one link share it fairly, and the longer one speeds up when the other ends", "[sim]") {
  // Ranks 0 and 1 send S and 3S bytes to rank 2 at once over the same link.
  constexpr double B = 1e9, a = 5e-6;
  constexpr size_t S = 1 << 20;  // elements of float: bytes 4S
  HandNetwork net;
  const int shared = net.addLink("shared", B);
  net.route(0, 2, {shared}, a);
  net.route(1, 2, {shared}, a);
  const std::vector<algo::Schedule> all{handSchedule(0, 3, {sendTo(2, 1, S)}),
                                        handSchedule(1, 3, {sendTo(2, 2, 3 * S)}),
                                        handSchedule(2, 3, {receiveFrom(0, 1, S), receiveFrom(1, 2, 3 * S)})};
  const double bytes = 4.0 * S;
  // Event-driven: both at B/2 until the first ends at 2 bytes/B; the other
  // then has 2 bytes left alone at B.
  const sim::Prediction events = sim::runEvents(all, net);
  CHECK(events.seconds == Approx(4 * bytes / B + a).epsilon(1e-9));
  CHECK(events.bound == "link shared");
  // Analytical: shares are fixed per step index, so the longer one moves at
  // B/2 throughout (3 bytes / (B/2)); the link's load (4 bytes / B) is below.
  CHECK(sim::runAnalytical(all, net).seconds == Approx(6 * bytes / B + a).epsilon(1e-9));
}

// Rank 0 sends counts[j-1] floats to rank j (j = 1..k), each over a link of
// its own; with `issued`, every message is first issued by rank 0's DMA link
// "dma" (on no path: it only issues), for s each.
struct HandFanOut {
  static constexpr double B = 1e9, a = 2e-6, s = 1e-6, L = 20e-6;
  HandNetwork net;
  std::vector<algo::Schedule> all;
  HandFanOut(const std::vector<size_t>& counts, bool issued) {
    const int k = static_cast<int>(counts.size());
    const int dma = net.addLink("dma", B);
    net.launch = L;
    std::vector<algo::Step> sends;
    all.push_back({});  // rank 0's, below
    for (int j = 1; j <= k; ++j) {
      const int link = net.addLink("to" + std::to_string(j), B);
      if (issued)
        net.route(0, j, {link}, a, dma, s);
      else
        net.route(0, j, {link}, a);
      sends.push_back(sendTo(j, 1, counts[j - 1]));
      all.push_back(handSchedule(j, k + 1, {receiveFrom(0, 1, counts[j - 1])}));
    }
    all[0] = handSchedule(0, k + 1, std::move(sends));
  }
};

TEST_CASE("sim: one DMA link issues its messages one after another, s apart, and the launch comes once at the end",
          "[sim]") {
  // Rank 0's sends all start at 0; the j-th is issued at j s, then moves
  // alone on its own link (bytes / B) and arrives a later. The call ends at
  // the last arrival, plus the launch L. The analytical engine issues the
  // same way, and every link has one transfer: it gives the same times.
  using F = HandFanOut;
  constexpr size_t count = 1000;  // floats: 4 us on a link
  constexpr double bytes = count * 4.0;
  SECTION("k equal messages: the last is issued at k s") {
    for (int k = 1; k <= 4; ++k) {
      CAPTURE(k);
      const F fan(std::vector<size_t>(k, count), true);
      const double expected = k * F::s + bytes / F::B + F::a + F::L;
      const sim::Prediction events = sim::runEvents(fan.all, fan.net);
      CHECK(events.seconds == Approx(expected).epsilon(1e-12));
      CHECK(events.linkIssueSeconds.at(0) == Approx(k * F::s).epsilon(1e-12));
      CHECK(events.linkBytes.at(0) == 0);  // the DMA link only issued them
      CHECK(sim::runAnalytical(fan.all, fan.net).seconds == Approx(expected).epsilon(1e-12));
    }
  }
  SECTION("the first of three is issued at s: a long first message ends the call at s + its bytes / B") {
    // 100 us of bytes issued at 1 us ends after the others (issued at 2 and
    // 3 us, 4 us long).
    const F fan({25 * count, count, count}, true);
    const double expected = F::s + 25 * bytes / F::B + F::a + F::L;
    CHECK(sim::runEvents(fan.all, fan.net).seconds == Approx(expected).epsilon(1e-12));
    CHECK(sim::runAnalytical(fan.all, fan.net).seconds == Approx(expected).epsilon(1e-12));
  }
  SECTION("a sender whose paths have no issue link is not delayed") {
    const F fan(std::vector<size_t>(4, count), false);
    const double expected = bytes / F::B + F::a + F::L;
    const sim::Prediction events = sim::runEvents(fan.all, fan.net);
    CHECK(events.seconds == Approx(expected).epsilon(1e-12));
    CHECK(events.linkIssueSeconds.at(0) == 0);
    CHECK(sim::runAnalytical(fan.all, fan.net).seconds == Approx(expected).epsilon(1e-12));
  }
  SECTION("a call without messages is not launched") {
    const F fan({}, true);
    CHECK(sim::runEvents(fan.all, fan.net).seconds == 0);
    CHECK(sim::runAnalytical(fan.all, fan.net).seconds == 0);
  }
}

TEST_CASE("sim: a receive nobody sends is an internal error naming the rank and step", "[sim]") {
  HandNetwork net;
  net.route(0, 1, {net.addLink("l", 1e9)}, 1e-6);
  const std::vector<algo::Schedule> all{handSchedule(0, 2, {}), handSchedule(1, 2, {receiveFrom(0, 9, 16)})};
  CHECK_THROWS_WITH(sim::runEvents(all, net), Catch::Contains("rank 1 never finished phase 0 channel 0 step 0"));
}

// Both engines on every shipped topology, one instance and two, and on
// 1,024 ranks. On the links alone (the collective engine's figures set to 0)
// they agree within 10% but for a few cases a little over, where contention
// stretches the event engine's chains (or, for the hierarchical one,
// overlaps its phases) beyond what the analytical engine's per-step shares
// see: RDH across inf2.48xlarge's 12-chip ring (12.8% at 64 KiB since its
// NeuronLinks count 48 GB/s per direction, not 96) and hierarchical on 32
// trn1.32xlarge (10.6%). Hence 13%.
//
// With the collective engine, every NeuronCore of a chip sends through the
// chip's DMA engines: the analytical engine gives each of a step's messages
// a fixed share of them for its whole length, where the event engine's
// chip-mates issue one after another and pipeline. That costs up to 14%
// with 2 or 4 NeuronCores per chip, and 39% on the 4-core trn2 UltraServer's
// 256-rank ring at 64 MiB, whose 510 steps the event engine pipelines at 97%
// of the DMA engines' rate; 16% for trn1n.32xlarge's bidirectional ring at
// 64 MiB with reductions at the fitted rate; 51% for chip_rdh on
// trn2.48xlarge's 4-core chips at 64 MiB (within 13% on the links alone):
// at each RDH level the four groups' messages leave a chip through its DMA
// engines together, which the event engine queues and the analytical engine
// shares out, as for the UltraServer's ring.
namespace {

struct Tolerance {
  double links = 0.13;   // the links alone
  double engine = 0.16;  // with the collective engine
};

double engineTolerance(const sim::Machine& machine, const std::string& algorithm) {
  if (algorithm == "chip_rdh") return 0.55;
  return machine.topology().name == "trn2-ultraserver" ? 0.40 : Tolerance{}.engine;
}

sim::Knobs linksAlone() {
  sim::Knobs knobs;
  for (auto& figure : knobs.engine) figure = 0;
  return knobs;
}

void checkEnginesAgree(const sim::Machine& machine, const std::string& algorithm, size_t count, double tolerance,
                       algo::Collective collective = algo::Collective::AllReduce) {
  CAPTURE(machine.describe(), algorithm, count, tolerance, algo::collectiveName(collective));
  sim::Call call;
  call.collective = collective;
  call.count = count;
  call.algorithm = algorithm;
  call.engine = sim::Engine::EventDriven;
  const sim::Prediction events = sim::simulate(machine, call);
  call.engine = sim::Engine::Analytical;
  const sim::Prediction analytical = sim::simulate(machine, call);
  CHECK(events.algorithm == analytical.algorithm);
  CHECK(events.seconds > 0);
  CHECK(std::abs(events.seconds - analytical.seconds) <= tolerance * analytical.seconds);
}

void checkEveryShippedTopology(bool withEngine) {
  std::vector<std::string> machines;
  for (const std::string& name : topo::shippedTopologyNames()) {
    machines.push_back(name);
    if (!topo::loadTopology(name).nics.empty()) machines.push_back(name + ":2");
  }
  for (const std::string& name : machines) {
    // With the engine: under the 2023 runtime, the era the tolerances were
    // measured in (its launch and per-message issuing hide more of the
    // engines' differences than the newer eras' near-zero figures).
    sim::Knobs era2023;
    era2023.runtime = "2023";
    // A NeuronSwitch machine (trn3-ultraserver) on 64 of its 576 ranks per
    // instance: 16 chips on 4 servers cross both switch levels. All 576 take
    // the event engine minutes, and there RDH's 64 ranks beyond a power of
    // two queue on their partners' ports, which the analytical engine shares
    // out (34% apart at 16 MiB on the links alone; docs/trnccl-sim.md).
    const topo::Topology shape = topo::loadTopology(name);
    const bool switched = shape.neuronSwitch.present();
    const sim::Machine machine(name, withEngine ? era2023 : linksAlone(), switched ? 64 : 0,
                               switched && shape.nodes > 1 ? "spread" : "core");
    // Through the switch a hop takes 0.5 us on a chip, 1.5 us through one
    // level and 3 us through two: the event engine's chains wait on the
    // slowest, where the analytical engine prices each step's (ring 16%,
    // bidir_ring 23% at 64 MiB on the links alone).
    const double switchTolerance = switched ? 0.25 : 0;
    const auto tolerance = [&](const std::string& algorithm) {
      return std::max(switchTolerance, withEngine ? engineTolerance(machine, algorithm) : Tolerance{}.links);
    };
    // Each algorithm on all-reduce, or one that does not run it (direct) on gather.
    std::vector<std::pair<std::string, algo::Collective>> algorithms = {{"auto", algo::Collective::AllReduce}};
    for (const algo::RegisteredAlgorithm& a : algo::registeredAlgorithms()) {
      if (a.reach == algo::Reach::Instances && machine.layout().instances() == 1) continue;
      // Mesh sends all of a rank's messages at once: with the collective
      // engine the engines disagree by up to 33% (16 KiB on 64 trn2.48xlarge
      // ranks: the analytical engine's fixed share of the DMA engines per
      // message is not the event engine's queue), and the event engine takes
      // minutes on 256 ranks. Not compared here.
      if (a.name == "mesh") continue;
      algo::CollectiveArgs allReduce{algo::Collective::AllReduce, 0, machine.ranks(), 8};
      allReduce.layout = &machine.layout();
      const bool allReduces = a.make()->whyUnsupported(allReduce).empty();
      if (a.reach == algo::Reach::Chips && !allReduces) continue;  // one chip, or chips on several instances
      algorithms.push_back({a.name, allReduces ? algo::Collective::AllReduce : algo::Collective::Gather});
    }
    for (const auto& [algorithm, collective] : algorithms)
      for (size_t count : {size_t{16} << 10, size_t{1} << 20, size_t{16} << 20})
        checkEnginesAgree(machine, algorithm, count, tolerance(algorithm), collective);
  }
}

}  // namespace

TEST_CASE("sim: the engines agree on every shipped topology, on the links alone", "[sim]") {
  checkEveryShippedTopology(false);
}

TEST_CASE("sim: the engines agree on every shipped topology, with the collective engine", "[sim]") {
  checkEveryShippedTopology(true);
}

TEST_CASE("sim: the engines agree on 1024 ranks (32 trn1.32xlarge)", "[sim]") {
  const sim::Machine machine("trn1.32xlarge:32", {});
  REQUIRE(machine.ranks() == 1024);
  for (const std::string algorithm : {"ring", "hierarchical", "torus2d"})
    checkEnginesAgree(machine, algorithm, size_t{16} << 20, Tolerance{}.engine);
}
