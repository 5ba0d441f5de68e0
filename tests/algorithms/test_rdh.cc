// Recursive halving-doubling: the schedules of all ranks, run by the
// independent interpreter, must produce the reference result for every
// collective it implements x op x n = 1..16 x count x in/out-of-place, write
// every output element once per rank, and reduce every result element at
// exactly one rank. (The reference here is this file's own: the shared
// collective_check helpers did not exist yet.)
#include <catch2/catch.hpp>
#include <algorithm>
#include <sstream>

#include "algorithms/rdh.h"
#include "schedule_interpreter.h"

using namespace trnccl;
using algo::Collective;

namespace {

// Small nonzero integers of both signs: every sum, product (|x| <= 7^16),
// max and min is exact in double, so results compare with ==.
double input(int rank, size_t i) {
  const double magnitude = static_cast<double>((rank * 5 + i * 3) % 7 + 1);
  return (rank + i) % 2 ? -magnitude : magnitude;
}

double reduceAll(trncclRedOp_t op, int n, size_t i) {
  double acc = input(0, i);
  for (int r = 1; r < n; ++r) {
    const double v = input(r, i);
    switch (op) {
      case trncclProd: acc *= v; break;
      case trncclMax: acc = std::max(acc, v); break;
      case trncclMin: acc = std::min(acc, v); break;
      default: acc += v; break;
    }
  }
  return op == trncclAvg ? acc / n : acc;
}

// What rank r's receive buffer holds at element i afterwards.
double expected(const algo::CollectiveArgs& a, int r, size_t i) {
  switch (a.collective) {
    case Collective::AllReduce: return reduceAll(a.op, a.nranks, i);
    case Collective::ReduceScatter: return reduceAll(a.op, a.nranks, r * a.count + i);
    default: return input(static_cast<int>(i / a.count), i % a.count);  // all-gather
  }
}

// In place, all-gather's input is the rank's block of the output and
// reduce-scatter's output the rank's block of the input.
test::RankBuffers buffersOf(const algo::CollectiveArgs& a, int r) {
  const size_t whole = a.count * a.nranks;
  test::RankBuffers b;
  b.sendSize = a.collective == Collective::ReduceScatter ? whole : a.count;
  b.recvSize = a.collective == Collective::AllGather ? whole : a.count;
  if (a.inPlace) {
    b.memory.assign(std::max(b.sendSize, b.recvSize), -99);
    if (a.collective == Collective::AllGather) b.sendAt = a.count * r;
    if (a.collective == Collective::ReduceScatter) b.recvAt = a.count * r;
  } else {
    b.memory.assign(b.sendSize + b.recvSize, -99);
    b.recvAt = b.sendSize;
  }
  for (size_t i = 0; i < b.sendSize; ++i) b.memory[b.sendAt + i] = input(r, i);
  return b;
}

std::string describe(const algo::CollectiveArgs& a) {
  std::ostringstream os;
  os << "rdh " << algo::collectiveName(a.collective) << " n=" << a.nranks << " count=" << a.count
     << " op=" << a.op << (a.inPlace ? " in-place" : " out-of-place");
  return os.str();
}

std::vector<algo::Schedule> schedulesOf(algo::CollectiveArgs args) {
  std::vector<algo::Schedule> schedules;
  for (int r = 0; r < args.nranks; ++r) {
    args.rank = r;
    schedules.push_back(algo::Rdh().build(args));
  }
  return schedules;
}

template <class Visit>
void forEachStep(const algo::Schedule& s, Visit visit) {
  for (const auto& phase : s.phases)
    for (const auto& channel : phase.channels)
      for (const auto& step : channel.steps) visit(step);
}

void check(const algo::CollectiveArgs& args) {
  INFO(describe(args));
  const int n = args.nranks;
  const std::vector<algo::Schedule> schedules = schedulesOf(args);
  std::vector<test::RankBuffers> buffers;
  for (int r = 0; r < n; ++r) buffers.push_back(buffersOf(args, r));

  // Statically: each receive-buffer element is the destination of exactly one
  // step, and the final reductions of all ranks together cover each result
  // element once (each is computed at one rank, then only copied).
  size_t finalElements = 0;
  for (int r = 0; r < n; ++r) {
    std::vector<int> writes(buffers[r].recvSize, 0);
    forEachStep(schedules[r], [&](const algo::Step& step) {
      if (step.final) finalElements += step.count;
      if (step.dst.buffer != algo::kRecv) return;
      REQUIRE(step.dst.offset + step.count <= writes.size());
      for (size_t i = 0; i < step.count; ++i) ++writes[step.dst.offset + i];
    });
    INFO("rank " << r);
    CHECK(std::all_of(writes.begin(), writes.end(), [](int w) { return w == 1; }));
  }
  if (args.collective != Collective::AllGather && n > 1)
    CHECK(finalElements == (args.collective == Collective::AllReduce ? args.count : args.count * n));

  const test::InterpreterResult result = test::interpret(schedules, buffers);
  INFO(result.error);
  REQUIRE(result.ok);
  for (int r = 0; r < n; ++r) {
    INFO("rank " << r);
    for (size_t i = 0; i < buffers[r].recvSize; ++i) {
      INFO("element " << i);
      REQUIRE(buffers[r].recvWrites[i] == 1);
      REQUIRE(buffers[r].recv(i) == expected(args, r, i));
    }
  }
}

}  // namespace

TEST_CASE("rdh computes all-reduce, reduce-scatter and all-gather for 1..16 ranks", "[algorithms][rdh]") {
  for (Collective c : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather}) {
    const int ops = c == Collective::AllGather ? 1 : trncclNumOps;
    for (int n = 1; n <= 16; ++n)
      for (size_t count : {0, 1, 3, 17, 64})
        for (int op = 0; op < ops; ++op)
          for (bool inPlace : {false, true}) {
            algo::CollectiveArgs args;
            args.collective = c;
            args.nranks = n;
            args.count = count;
            args.op = static_cast<trncclRedOp_t>(op);
            args.inPlace = inPlace;
            check(args);
          }
  }
}

TEST_CASE("rdh halves at distances p/2..1 and doubles back at 1..p/2", "[algorithms][rdh]") {
  // 8 ranks, 64 elements: each level exchanges with rank ^ distance, and the
  // messages carry 32, 16, 8 elements while halving, then 8, 16, 32.
  algo::CollectiveArgs args;
  args.nranks = 8;
  args.count = 64;
  const int distances[] = {4, 2, 1, 1, 2, 4};
  const size_t sizes[] = {32, 16, 8, 8, 16, 32};
  for (const algo::Schedule& s : schedulesOf(args)) {
    INFO("rank " << s.rank);
    REQUIRE(s.phases.size() == 6);
    for (size_t level = 0; level < 6; ++level) {
      for (const auto& channel : s.phases[level].channels) {
        REQUIRE(channel.steps.size() == 1);
        const algo::Step& step = channel.steps[0];
        const int peer = step.recvPeer >= 0 ? step.recvPeer : step.sendPeer;
        CHECK(peer == (s.rank ^ distances[level]));
        CHECK(step.count == sizes[level]);
      }
    }
  }
}

TEST_CASE("rdh folds ranks beyond a power of two into their neighbours", "[algorithms][rdh]") {
  // 6 ranks: p = 4, r = 2. Ranks 0 and 2 send their input to 1 and 3 and
  // take no part until the result comes back; they exchange with no one else.
  algo::CollectiveArgs args;
  args.nranks = 6;
  args.count = 12;
  for (const algo::Schedule& s : schedulesOf(args)) {
    std::vector<int> peers;
    forEachStep(s, [&](const algo::Step& step) {
      for (int peer : {step.recvPeer, step.sendPeer})
        if (peer >= 0) peers.push_back(peer);
    });
    INFO("rank " << s.rank);
    if (s.rank == 0 || s.rank == 2) {
      CHECK(peers == std::vector<int>{s.rank + 1, s.rank + 1});
    } else {
      const bool touchesRank0 = std::find(peers.begin(), peers.end(), 0) != peers.end();
      const bool touchesRank2 = std::find(peers.begin(), peers.end(), 2) != peers.end();
      CHECK(touchesRank0 == (s.rank == 1));
      CHECK(touchesRank2 == (s.rank == 3));
    }
  }
}

TEST_CASE("rdh names the collectives it does not implement", "[algorithms][rdh]") {
  algo::Rdh rdh;
  CHECK(rdh.whyUnsupported(algo::CollectiveArgs{Collective::AllReduce, 0, 4, 8}).empty());
  for (Collective c : {Collective::Broadcast, Collective::Reduce, Collective::AllToAll})
    CHECK(rdh.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}).find(algo::collectiveName(c)) != std::string::npos);
}
