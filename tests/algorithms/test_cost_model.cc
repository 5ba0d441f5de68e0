// The alpha-beta cost model on hand-built networks: every expected time is
// the textbook formula for the algorithm, computed here, not by the model.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "algorithms/cost_model.h"
#include "algorithms/mesh.h"
#include "algorithms/rdh.h"
#include "algorithms/ring.h"
#include "base/error.h"
#include "tests/algorithms/hand_network.h"

using namespace trnccl;
using algo::Collective;
using test::HandNetwork;

namespace {

// Ranks 0..n-1 in a unidirectional ring: one link from each rank to the next.
HandNetwork ringNetwork(int n, double bytesPerSec, double latency) {
  HandNetwork net;
  for (int r = 0; r < n; ++r) {
    const int next = (r + 1) % n;
    net.route(r, next, {net.addLink("chip" + std::to_string(r) + "->chip" + std::to_string(next), bytesPerSec)},
              latency);
  }
  return net;
}

// A direct link between every ordered pair of ranks.
HandNetwork fullyConnected(int n, double bytesPerSec, double latency) {
  HandNetwork net;
  for (int from = 0; from < n; ++from)
    for (int to = 0; to < n; ++to)
      if (from != to)
        net.route(from, to, {net.addLink("r" + std::to_string(from) + "->r" + std::to_string(to), bytesPerSec)},
                  latency);
  return net;
}

std::vector<algo::Schedule> schedulesOf(const algo::Algorithm& algorithm, algo::CollectiveArgs args) {
  std::vector<algo::Schedule> schedules;
  for (int r = 0; r < args.nranks; ++r) {
    args.rank = r;
    schedules.push_back(algorithm.build(args));
  }
  return schedules;
}

algo::CollectiveArgs allReduce(int n, size_t count, trncclDataType_t type = trncclFloat32) {
  algo::CollectiveArgs args;
  args.nranks = n;
  args.count = count;
  args.type = type;
  return args;
}

// One rank's schedule of single-step channels, one message each.
algo::Schedule messages(int rank, int n, std::vector<algo::Step> steps) {
  algo::Schedule s;
  s.collective = Collective::SendRecv;
  s.type = trncclUint8;
  s.rank = rank;
  s.nranks = n;
  s.phases.resize(1);
  for (algo::Step& step : steps) s.phases[0].channels.push_back(algo::Channel{{std::move(step)}});
  return s;
}

algo::Step sendTo(int peer, size_t bytes) {
  algo::Step s;
  s.sendPeer = peer;
  s.srcs = {algo::Span{algo::kFirstUserBuffer, 0}};
  s.count = bytes;
  return s;
}

algo::Step receiveFrom(int peer, size_t bytes) {
  algo::Step s;
  s.recvPeer = peer;
  s.dst = algo::Span{algo::kFirstUserBuffer, 0};
  s.count = bytes;
  return s;
}

}  // namespace

TEST_CASE("a ring all-reduce costs 2(n-1) steps of alpha + (N/n)/B plus n-1 block reductions", "[algorithms][cost]") {
  const int n = 4;
  const double B = 10e9, a = 2e-6, R = 40e9;
  const size_t count = 4 * 1024;  // equal blocks
  HandNetwork net = ringNetwork(n, B, a);
  net.reduceRate = R;
  const double block = count / n * 4.0;  // float bytes
  const algo::Prediction p = algo::predict(schedulesOf(algo::Ring(), allReduce(n, count)), net);
  CHECK(p.seconds == Approx(2 * (n - 1) * (a + block / B) + (n - 1) * block / R).epsilon(1e-12));

  SECTION("element sizes come from the schedule's type") {
    net.reduceRate = std::numeric_limits<double>::infinity();
    const double half = count / n * 2.0;  // bfloat16 bytes
    const algo::Prediction bf16 = algo::predict(schedulesOf(algo::Ring(), allReduce(n, count, trncclBfloat16)), net);
    CHECK(bf16.seconds == Approx(2 * (n - 1) * (a + half / B)).epsilon(1e-12));
  }
}

TEST_CASE("two transfers sharing a link take twice one transfer's time on it", "[algorithms][cost]") {
  // Ranks 0 and 1 both send to rank 2 over their own link into a switch, then
  // over the one link from the switch to rank 2.
  const double B = 1e9, a = 1e-7;
  const size_t bytes = 1 << 20;
  HandNetwork net;
  const int in0 = net.addLink("r0->switch", B), in1 = net.addLink("r1->switch", B);
  const int shared = net.addLink("switch->r2", B);
  net.route(0, 2, {in0, shared}, a);
  net.route(1, 2, {in1, shared}, a);
  const std::vector<algo::Schedule> schedules{messages(0, 3, {sendTo(2, bytes)}), messages(1, 3, {sendTo(2, bytes)}),
                                              messages(2, 3, {receiveFrom(0, bytes), receiveFrom(1, bytes)})};
  const algo::Prediction p = algo::predict(schedules, net);
  CHECK(p.seconds == Approx(2 * bytes / B).epsilon(1e-12));
  CHECK(p.bound == "link switch->r2");
}

TEST_CASE("a rank's channels run side by side; where they share the rank, their work adds up and their waits overlap",
          "[algorithms][cost]") {
  // Rank 2 receives from ranks 0 and 1 over links of their own, one message
  // per channel.
  const double B = 1e9, a = 1e-6;
  const size_t bytes = 1 << 20;
  HandNetwork net;
  net.route(0, 2, {net.addLink("r0->r2", B)}, a);
  net.route(1, 2, {net.addLink("r1->r2", B)}, a);
  const std::vector<algo::Schedule> schedules{messages(0, 3, {sendTo(2, bytes)}), messages(1, 3, {sendTo(2, bytes)}),
                                              messages(2, 3, {receiveFrom(0, bytes), receiveFrom(1, bytes)})};
  CHECK(algo::predict(schedules, net).seconds == Approx(a + bytes / B).epsilon(1e-12));
  net.serialChannels = true;  // one thread carries both channels' bytes
  CHECK(algo::predict(schedules, net).seconds == Approx(a + 2 * bytes / B).epsilon(1e-12));
}

TEST_CASE("a mesh all-reduce costs one alpha + N/B, then n-1 reductions of N", "[algorithms][cost]") {
  const int n = 4;
  const double B = 5e9, a = 3e-6, R = 20e9;
  const size_t count = 1000;
  HandNetwork net = fullyConnected(n, B, a);
  net.reduceRate = R;
  const double bytes = count * 4.0;
  const algo::Prediction p = algo::predict(schedulesOf(algo::Mesh(), allReduce(n, count)), net);
  CHECK(p.seconds == Approx(a + bytes / B + (n - 1) * bytes / R).epsilon(1e-12));
}

TEST_CASE("an rdh all-reduce costs 2 log2(p) alpha + 2 (p-1)/p N/B", "[algorithms][cost]") {
  const int n = 8;
  const double B = 5e9, a = 3e-6, R = 20e9;
  const size_t count = 8 * 512;
  HandNetwork net = fullyConnected(n, B, a);
  net.reduceRate = R;
  const double bytes = count * 4.0;
  const algo::Prediction p = algo::predict(schedulesOf(algo::Rdh(), allReduce(n, count)), net);
  CHECK(p.seconds == Approx(2 * 3 * a + 2.0 * (n - 1) / n * bytes / B + (n - 1.0) / n * bytes / R).epsilon(1e-12));
}

TEST_CASE("the bound names what limited the prediction", "[algorithms][cost]") {
  const int n = 4;
  SECTION("latency for a tiny ring all-reduce on slow hops") {
    const HandNetwork net = ringNetwork(n, 100e9, 10e-6);
    CHECK(algo::predict(schedulesOf(algo::Ring(), allReduce(n, 4)), net).bound == "latency");
  }
  SECTION("a link for a large ring all-reduce") {
    const HandNetwork net = ringNetwork(n, 1e9, 1e-6);
    const std::string bound = algo::predict(schedulesOf(algo::Ring(), allReduce(n, 1 << 20)), net).bound;
    CHECK(bound.rfind("link chip", 0) == 0);
  }
  SECTION("the vector engine for a mesh all-reduce with a slow reducer") {
    HandNetwork net = fullyConnected(n, 100e9, 1e-6);
    net.reduceRate = 1e6;
    CHECK(algo::predict(schedulesOf(algo::Mesh(), allReduce(n, 1 << 16)), net).bound == "vector engine");
  }
  SECTION("nothing when nothing moves") {
    const HandNetwork net = ringNetwork(n, 1e9, 1e-6);
    const algo::Prediction p = algo::predict(schedulesOf(algo::Ring(), allReduce(n, 0)), net);
    CHECK(p.seconds == 0);
    CHECK(p.bound.empty());
  }
}

TEST_CASE("the cost model scales to 256 ranks of thousands of steps", "[algorithms][cost]") {
  // A ring all-reduce in 4 rounds of 2-element steps: 2044 steps per rank.
  const int n = 256;
  const double B = 2e9, a = 1e-6, R = 8e9;
  HandNetwork net = ringNetwork(n, B, a);
  net.reduceRate = R;
  algo::CollectiveArgs args = allReduce(n, n * 8);
  args.maxStepElements = 2;
  const std::vector<algo::Schedule> schedules = schedulesOf(algo::Ring(), args);
  REQUIRE(schedules[0].stepCount() == 4 * (2 * n - 1));
  const double step = 2 * 4.0, rounds = 4;
  CHECK(algo::predict(schedules, net).seconds ==
        Approx(rounds * (2 * (n - 1) * (a + step / B) + (n - 1) * step / R)).epsilon(1e-9));
}

TEST_CASE("a network that names a missing link is an internal error", "[algorithms][cost]") {
  HandNetwork net;
  net.addLink("only", 1e9);
  net.route(0, 1, {7}, 1e-6);
  const std::vector<algo::Schedule> schedules{messages(0, 2, {sendTo(1, 8)}), messages(1, 2, {receiveFrom(0, 8)})};
  CHECK_THROWS_WITH(algo::predict(schedules, net), Catch::Contains("link 7"));
  CHECK_THROWS_AS(algo::predict(schedules, net), Error);
}

// The collective engine (cost_model.h): a launch per call, and each message
// issued by its path's issue link.

TEST_CASE("the launch time is added once per call, not per phase or rank, and not to a call that moves nothing",
          "[algorithms][cost]") {
  const double B = 1e9, a = 1e-6, L = 30e-6;
  SECTION("a 4-rank ring all-reduce: 2(n-1) steps, n ranks, one launch") {
    const int n = 4;
    const size_t count = 4 * 1024;
    HandNetwork net = ringNetwork(n, B, a);
    net.launch = L;
    const double block = count / n * 4.0;
    const algo::Prediction p = algo::predict(schedulesOf(algo::Ring(), allReduce(n, count)), net);
    CHECK(p.seconds == Approx(2 * (n - 1) * (a + block / B) + L).epsilon(1e-12));
  }
  SECTION("one message in each of two phases: two phases, one launch") {
    const size_t bytes = 1000;
    HandNetwork net;
    net.route(0, 1, {net.addLink("l", B)}, a);
    net.launch = L;
    algo::Schedule sender = messages(0, 2, {sendTo(1, bytes)}), receiver = messages(1, 2, {receiveFrom(0, bytes)});
    sender.phases.push_back(sender.phases[0]);
    receiver.phases.push_back(receiver.phases[0]);
    const algo::Prediction p = algo::predict({sender, receiver}, net);
    CHECK(p.seconds == Approx(2 * (a + bytes / B) + L).epsilon(1e-12));
  }
  SECTION("an empty all-reduce is not launched") {
    HandNetwork net = ringNetwork(4, B, a);
    net.launch = L;
    CHECK(algo::predict(schedulesOf(algo::Ring(), allReduce(4, 0)), net).seconds == 0);
  }
}

TEST_CASE("a message's chain pays its path's issue time once", "[algorithms][cost]") {
  const double B = 1e9, a = 1e-6, s = 2e-6;
  SECTION("one message over two links, issued by the first") {
    // Chain: a + bytes/B + s = 1.003 ms; each link's load (1 ms) is below it.
    const size_t bytes = 1000000;
    HandNetwork net;
    const int first = net.addLink("first", B), second = net.addLink("second", B);
    net.route(0, 1, {first, second}, a, first, s);
    const std::vector<algo::Schedule> schedules{messages(0, 2, {sendTo(1, bytes)}),
                                                messages(1, 2, {receiveFrom(0, bytes)})};
    CHECK(algo::predict(schedules, net).seconds == Approx(a + bytes / B + s).epsilon(1e-12));
  }
  SECTION("every hop of a ring all-reduce") {
    // Each rank's ring link issues its own 2(n-1) messages: a load of
    // 2(n-1) max(block/B, s), below the chain's 2(n-1) (a + block/B + s).
    const int n = 4;
    const size_t count = 4 * 1024;
    HandNetwork net;
    for (int r = 0; r < n; ++r) {
      const int link = net.addLink("l" + std::to_string(r), B);
      net.route(r, (r + 1) % n, {link}, a, link, s);
    }
    const double block = count / n * 4.0;
    const algo::Prediction p = algo::predict(schedulesOf(algo::Ring(), allReduce(n, count)), net);
    CHECK(p.seconds == Approx(2 * (n - 1) * (a + block / B + s)).epsilon(1e-12));
  }
}

namespace {

// Rank 0 sends `bytes` to each of ranks 1..k over its DMA link "dma" (of
// bandwidth D, which issues every message for s) and then a link of its
// own to the receiver, 100 times faster.
struct FanOut {
  HandNetwork net;
  std::vector<algo::Schedule> schedules;
  FanOut(int k, size_t bytes, double D, double s, double a) {
    const int dma = net.addLink("dma", D);
    std::vector<algo::Step> sends;
    for (int r = 1; r <= k; ++r) {
      net.route(0, r, {dma, net.addLink("to" + std::to_string(r), 100 * D)}, a, dma, s);
      sends.push_back(sendTo(r, bytes));
      schedules.push_back(messages(r, k + 1, {receiveFrom(0, bytes)}));
    }
    schedules.push_back(messages(0, k + 1, std::move(sends)));
  }
};

}  // namespace

TEST_CASE("n messages one link issues in a phase load it with max(bytes / bandwidth, n * issue time)",
          "[algorithms][cost]") {
  const double D = 1e9, s = 1e-6, a = 1e-6;
  SECTION("few large messages: their bytes dominate") {
    // 4 x 1 ms of bytes against 4 x 1 us of issuing: the load is 4 ms (not
    // their sum), above any chain's a + 1 ms + s.
    const int k = 4;
    const size_t bytes = 1000000;
    const FanOut fan(k, bytes, D, s, a);
    const algo::Prediction p = algo::predict(fan.schedules, fan.net);
    CHECK(p.seconds == Approx(k * bytes / D).epsilon(1e-12));
    CHECK(p.bound == "link dma");
  }
  SECTION("many small messages: issuing them dominates") {
    // 8 x 100 ns of bytes against 8 x 1 us of issuing: the load is 8 us (not
    // their sum), above any chain's a + 100 ns + s.
    const int k = 8;
    const size_t bytes = 100;
    const FanOut fan(k, bytes, D, s, a);
    const algo::Prediction p = algo::predict(fan.schedules, fan.net);
    CHECK(p.seconds == Approx(k * s).epsilon(1e-12));
    CHECK(p.bound == "link dma");
  }
}

TEST_CASE("an empty message still pays its issue time", "[algorithms][cost]") {
  const double D = 1e9, s = 2e-6, a = 1e-6;
  SECTION("in its chain: a + s") {
    const FanOut fan(1, 0, D, s, a);
    CHECK(algo::predict(fan.schedules, fan.net).seconds == Approx(a + s).epsilon(1e-12));
  }
  SECTION("on its issue link: 5 empty messages hold it 5 s, longer than a chain") {
    const FanOut fan(5, 0, D, s, a);
    CHECK(algo::predict(fan.schedules, fan.net).seconds == Approx(5 * s).epsilon(1e-12));
  }
}

TEST_CASE("a reduction in slices adds only what its message's transfer cannot hide", "[algorithms][cost]") {
  // Whole (1 slice): all of it, after the transfer.
  CHECK(algo::exposedReduceSeconds(4, 10, 1) == 4);
  // 2 slices, the reduction faster than the transfer: only the last slice's half.
  CHECK(algo::exposedReduceSeconds(4, 10, 2) == 2);
  // 2 slices, the reduction slower: the last half, and the first half's excess over its slice of transfer.
  CHECK(algo::exposedReduceSeconds(10, 4, 2) == 8);
  // Local data (no transfer to hide behind): all of it, in any number of slices.
  CHECK(algo::exposedReduceSeconds(6, 0, 3) == 6);
}
