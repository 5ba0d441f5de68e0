#include "collective_check.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>

namespace trnccl::test {

using algo::Collective;

double input(int rank, size_t i) { return static_cast<double>(static_cast<int>((rank * 13 + i * 7) % 5) - 2); }

double fold(trncclRedOp_t op, int n, const std::function<double(int)>& value) {
  double acc = value(0);
  for (int r = 1; r < n; ++r) {
    const double v = value(r);
    acc = op == trncclProd  ? acc * v
          : op == trncclMax ? std::max(acc, v)
          : op == trncclMin ? std::min(acc, v)
                            : acc + v;
  }
  return op == trncclAvg ? acc / n : acc;
}

namespace {

struct Sizes {
  size_t sendSize, recvSize;
};

Sizes sizes(Collective c, size_t count, int n) {
  switch (c) {
    case Collective::AllGather:
      return {count, count * n};
    case Collective::ReduceScatter:
      return {count * n, count};
    case Collective::AllToAll:
      return {count * n, count * n};
    default:
      return {count, count};
  }
}

}  // namespace

RankBuffers makeBuffers(Collective c, size_t count, int n, int r, bool inPlace) {
  const Sizes l = sizes(c, count, n);
  RankBuffers b;
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

double expected(const algo::CollectiveArgs& a, int r, size_t i) {
  const int n = a.nranks;
  const size_t count = a.count;
  switch (a.collective) {
    case Collective::AllReduce:
    case Collective::Reduce:
      return fold(a.op, n, [&](int q) { return input(q, i); });
    case Collective::ReduceScatter:
      return fold(a.op, n, [&](int q) { return input(q, r * count + i); });
    case Collective::AllGather:
      return input(static_cast<int>(i / count), i % count);
    case Collective::Broadcast:
      return input(a.root, i);
    case Collective::AllToAll:
      return input(static_cast<int>(i / count), r * count + i % count);
    default:
      return 0;
  }
}

std::string describe(const algo::CollectiveArgs& a, const char* algorithm) {
  std::ostringstream os;
  os << algorithm << ' ' << algo::collectiveName(a.collective) << " n=" << a.nranks << " count=" << a.count
     << " op=" << a.op << " root=" << a.root << " maxStep=" << a.maxStepElements
     << (a.inPlace ? " in-place" : " out-of-place");
  if (a.layout && a.layout->hasGrid()) os << " grid=" << a.layout->gridWidth << 'x' << a.layout->gridHeight;
  if (a.layout && !a.layout->instanceOf.empty()) os << " instances=" << a.layout->instances();
  return os.str();
}

bool toNextInRing(const algo::CollectiveArgs& args, int from, int to) { return to == (from + 1) % args.nranks; }

bool toRingNeighbour(const algo::CollectiveArgs& args, int from, int to) {
  return toNextInRing(args, from, to) || toNextInRing(args, to, from);
}

void checkCollective(const algo::Algorithm& algorithm, algo::CollectiveArgs args, const Rules& rules) {
  const int n = args.nranks;
  std::vector<algo::Schedule> schedules;
  std::vector<RankBuffers> buffers;
  for (int r = 0; r < n; ++r) {
    args.rank = r;
    schedules.push_back(algorithm.build(args));
    buffers.push_back(makeBuffers(args.collective, args.count, n, r, args.inPlace));
  }
  args.rank = 0;
  INFO(describe(args, algorithm.name()));
  const InterpreterResult result = interpret(schedules, buffers);
  INFO(result.error);
  REQUIRE(result.ok);
  for (int r = 0; r < n; ++r) {
    INFO("rank " << r);
    for (const auto& phase : schedules[r].phases)
      for (const auto& channel : phase.channels)
        for (const auto& step : channel.steps) {
          if (rules.messages && step.sendPeer >= 0) REQUIRE(rules.messages(args, r, step.sendPeer));
          if (rules.messages && step.recvPeer >= 0) REQUIRE(rules.messages(args, step.recvPeer, r));
          if (rules.boundedSteps && args.maxStepElements && (step.sendPeer >= 0 || step.recvPeer >= 0))
            REQUIRE(step.count <= args.maxStepElements);
        }
    const bool writes = args.collective != Collective::Reduce || r == args.root;
    for (size_t i = 0; i < buffers[r].recvSize; ++i) {
      INFO("element " << i);
      REQUIRE(buffers[r].recvWrites[i] == (writes ? 1 : 0));
      if (writes) REQUIRE(buffers[r].recv(i) == expected(args, r, i));
    }
  }
}

void sweepGroup(const algo::Algorithm& algorithm, Collective collective, const algo::CollectiveArgs& group,
                const Rules& rules) {
  const bool reduces = collective == Collective::AllReduce || collective == Collective::ReduceScatter ||
                       collective == Collective::Reduce;
  const bool rooted = collective == Collective::Broadcast || collective == Collective::Reduce;
  const int n = group.nranks;
  for (size_t count : {0, 1, 3, 17, 64}) {
    for (int op = 0; op < (reduces ? trncclNumOps : 1); ++op) {
      for (bool inPlace : {false, true}) {
        for (int root : rooted ? std::vector<int>{0, n / 2, n - 1} : std::vector<int>{0}) {
          for (size_t maxStep : {size_t{0}, size_t{2}, size_t{5}}) {
            algo::CollectiveArgs args = group;
            args.maxStepElements = maxStep;
            args.collective = collective;
            args.count = count;
            args.op = static_cast<trncclRedOp_t>(op);
            args.root = root;
            args.inPlace = inPlace;
            checkCollective(algorithm, args, rules);
          }
        }
      }
    }
  }
}

algo::RankLayout onInstances(int instances, int local, bool interleaved) {
  algo::RankLayout layout;
  for (int r = 0; r < instances * local; ++r) layout.instanceOf.push_back(interleaved ? r % instances : r / local);
  return layout;
}

void sweep(const algo::Algorithm& algorithm, Collective collective, const Rules& rules) {
  for (int n : {1, 2, 3, 4, 5, 6, 7, 8, 16}) {
    algo::CollectiveArgs group;
    group.nranks = n;
    sweepGroup(algorithm, collective, group, rules);
  }
}

}  // namespace trnccl::test
