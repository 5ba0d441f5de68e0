// Every algorithm x collective x rank count x count x op x in/out of place:
// the schedules of all ranks, run by an independent interpreter, must produce
// the reference result, write every output element exactly once, and leave no
// message unmatched.
#include <catch2/catch.hpp>
#include <algorithm>
#include <memory>
#include <sstream>

#include "algorithms/mesh.h"
#include "algorithms/ring.h"
#include "schedule_interpreter.h"

using namespace trnccl;
using algo::Collective;

namespace {

double input(int rank, size_t i) { return static_cast<double>(static_cast<int>((rank * 13 + i * 7) % 5) - 2); }

double fold(trncclRedOp_t op, int n, const std::function<double(int)>& value) {
  double acc = value(0);
  for (int r = 1; r < n; ++r) {
    const double v = value(r);
    acc = op == trncclProd ? acc * v : op == trncclMax ? std::max(acc, v) : op == trncclMin ? std::min(acc, v) : acc + v;
  }
  return op == trncclAvg ? acc / n : acc;
}

struct Layout {
  size_t sendSize, recvSize;
};

Layout layout(Collective c, size_t count, int n) {
  switch (c) {
    case Collective::AllGather: return {count, count * n};
    case Collective::ReduceScatter: return {count * n, count};
    case Collective::AllToAll: return {count * n, count * n};
    default: return {count, count};
  }
}

test::RankBuffers makeBuffers(Collective c, size_t count, int n, int r, bool inPlace) {
  const Layout l = layout(c, count, n);
  test::RankBuffers b;
  b.sendSize = l.sendSize;
  b.recvSize = l.recvSize;
  if (inPlace) {
    b.memory.assign(std::max(l.sendSize, l.recvSize), -99);
    if (c == Collective::AllGather) b.sendAt = count * r;
    if (c == Collective::ReduceScatter) b.recvAt = count * r;
  } else {
    b.memory.assign(l.sendSize + l.recvSize, -99);
    b.recvAt = l.sendSize;
  }
  for (size_t i = 0; i < l.sendSize; ++i) b.memory[b.sendAt + i] = input(r, i);
  return b;
}

// What rank r's receive buffer must hold at element i.
double expected(const algo::CollectiveArgs& a, int r, size_t i) {
  const int n = a.nranks;
  const size_t count = a.count;
  switch (a.collective) {
    case Collective::AllReduce:
    case Collective::Reduce:
      return fold(a.op, n, [&](int q) { return input(q, i); });
    case Collective::ReduceScatter:
      return fold(a.op, n, [&](int q) { return input(q, r * count + i); });
    case Collective::AllGather: return input(static_cast<int>(i / count), i % count);
    case Collective::Broadcast: return input(a.root, i);
    case Collective::AllToAll: return input(static_cast<int>(i / count), r * count + i % count);
    default: return 0;
  }
}

std::string describe(const algo::CollectiveArgs& a, const char* algorithm) {
  std::ostringstream os;
  os << algorithm << ' ' << algo::collectiveName(a.collective) << " n=" << a.nranks << " count=" << a.count
     << " op=" << a.op << " root=" << a.root << " maxStep=" << a.maxStepElements
     << (a.inPlace ? " in-place" : " out-of-place");
  return os.str();
}

void checkCollective(const algo::Algorithm& algorithm, algo::CollectiveArgs args) {
  const int n = args.nranks;
  std::vector<algo::Schedule> schedules;
  std::vector<test::RankBuffers> buffers;
  for (int r = 0; r < n; ++r) {
    args.rank = r;
    schedules.push_back(algorithm.build(args));
    buffers.push_back(makeBuffers(args.collective, args.count, n, r, args.inPlace));
  }
  args.rank = 0;
  INFO(describe(args, algorithm.name()));
  const test::InterpreterResult result = test::interpret(schedules, buffers);
  INFO(result.error);
  REQUIRE(result.ok);
  const bool ring = std::string(algorithm.name()) == "ring";
  for (int r = 0; r < n; ++r) {
    INFO("rank " << r);
    if (ring) {
      // Ring steps talk to ring neighbours only.
      for (const auto& phase : schedules[r].phases)
        for (const auto& channel : phase.channels)
          for (const auto& step : channel.steps) {
            if (step.sendPeer >= 0) REQUIRE(step.sendPeer == (r + 1) % n);
            if (step.recvPeer >= 0) REQUIRE(step.recvPeer == (r + n - 1) % n);
          }
    }
    const bool writes = args.collective != Collective::Reduce || r == args.root;
    for (size_t i = 0; i < buffers[r].recvSize; ++i) {
      INFO("element " << i);
      REQUIRE(buffers[r].recvWrites[i] == (writes ? 1 : 0));
      if (writes) REQUIRE(buffers[r].recv(i) == expected(args, r, i));
    }
  }
}

void sweep(const algo::Algorithm& algorithm, Collective collective) {
  const bool reduces = collective == Collective::AllReduce || collective == Collective::ReduceScatter ||
                       collective == Collective::Reduce;
  const bool rooted = collective == Collective::Broadcast || collective == Collective::Reduce;
  for (int n : {1, 2, 3, 4, 5, 7, 8, 16}) {
    for (size_t count : {0, 1, 3, 17, 64}) {
      for (int op = 0; op < (reduces ? trncclNumOps : 1); ++op) {
        for (bool inPlace : {false, true}) {
          for (int root : rooted ? std::vector<int>{0, n / 2, n - 1} : std::vector<int>{0}) {
           for (size_t maxStep : {size_t{0}, size_t{2}, size_t{5}}) {
            algo::CollectiveArgs args;
            args.maxStepElements = maxStep;
            args.collective = collective;
            args.nranks = n;
            args.count = count;
            args.op = static_cast<trncclRedOp_t>(op);
            args.root = root;
            args.inPlace = inPlace;
            checkCollective(algorithm, args);
           }
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("ring schedules compute every collective it implements", "[algorithms][ring]") {
  algo::Ring ring;
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
                       Collective::Broadcast, Collective::Reduce}) {
    CHECK(ring.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}).empty());
    sweep(ring, c);
  }
  CHECK_FALSE(ring.whyUnsupported(algo::CollectiveArgs{Collective::AllToAll, 0, 4, 8}).empty());
}

TEST_CASE("mesh schedules compute every collective it implements", "[algorithms][mesh]") {
  algo::Mesh mesh;
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
                       Collective::AllToAll}) {
    CHECK(mesh.whyUnsupported(algo::CollectiveArgs{c, 0, 4, 8}).empty());
    sweep(mesh, c);
  }
  CHECK_FALSE(mesh.whyUnsupported(algo::CollectiveArgs{Collective::Broadcast, 0, 4, 8}).empty());
}

TEST_CASE("the interpreter catches broken schedules", "[algorithms]") {
  // A schedule whose receive has no matching send must be reported, not pass.
  algo::Ring ring;
  algo::CollectiveArgs args{Collective::AllReduce, 0, 2, 4};
  std::vector<algo::Schedule> schedules{ring.build(args)};
  args.rank = 1;
  schedules.push_back(ring.build(args));
  schedules[1].phases[0].channels[0].steps[1].recvTag = 99;
  std::vector<test::RankBuffers> buffers{makeBuffers(Collective::AllReduce, 4, 2, 0, false),
                                         makeBuffers(Collective::AllReduce, 4, 2, 1, false)};
  CHECK_FALSE(test::interpret(schedules, buffers).ok);
}
