#include "collective_check.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <string>

#include "uneven_calls.h"

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

namespace {

bool isNew(Collective c) { return c >= Collective::Gather; }

// Whether the run the source reports from step k of a channel (StepRun)
// holds what the cost model takes from it: steps with step k's peers,
// reduction and number of sources, counts within its bounds summing to its
// total; `want` are the channel's built steps.
bool runPricesAlike(const algo::StepSource& source, size_t p, size_t c, size_t k, const std::vector<algo::Step>& want) {
  algo::Step first;
  const algo::StepRun run = source.run(p, c, k, first);
  if (!(first == want[k]) || run.steps < 1 || k + run.steps > want.size()) return false;
  size_t total = 0;
  for (size_t j = k; j < k + run.steps; ++j) {
    const algo::Step& s = want[j];
    if (s.recvPeer != first.recvPeer || s.sendPeer != first.sendPeer || s.reduce != first.reduce ||
        s.srcs.size() != first.srcs.size() || s.count < run.minCount || s.count > run.maxCount)
      return false;
    total += s.count;
  }
  return total == run.totalCount;
}

// The algorithm's lazy path: rank `args.rank`'s steps read one by one from
// its StepSource, last step first (a source computes each step from its
// index alone), into a Schedule; REQUIREs every step to equal the built
// path's (build()), so the interpreter's verdict on one holds for both, and
// every run of alike steps it reports to hold (runPricesAlike).
algo::Schedule stepsReadBackwards(const algo::Algorithm& algorithm, const algo::CollectiveArgs& args,
                                  const algo::Schedule& built) {
  const std::unique_ptr<algo::StepSource> source = algorithm.steps(args);
  algo::Schedule read = source->header();
  REQUIRE(read.rank == built.rank);
  REQUIRE(read.nranks == built.nranks);
  REQUIRE(read.count == built.count);
  REQUIRE(read.scratchElements == built.scratchElements);
  REQUIRE(std::string(read.algorithm) == built.algorithm);
  REQUIRE(source->phases() == built.phases.size());
  read.phases.assign(source->phases(), {});
  for (size_t p = 0; p < read.phases.size(); ++p) {
    REQUIRE(source->channels(p) == built.phases[p].channels.size());
    read.phases[p].channels.resize(source->channels(p));
    for (size_t c = 0; c < read.phases[p].channels.size(); ++c) {
      const std::vector<algo::Step>& want = built.phases[p].channels[c].steps;
      REQUIRE(source->length(p, c) == want.size());
      std::vector<algo::Step>& steps = read.phases[p].channels[c].steps;
      steps.resize(want.size());
      for (size_t k = steps.size(); k-- > 0;) {
        source->step(p, c, k, steps[k]);
        INFO("phase " << p << " channel " << c << " step " << k);
        REQUIRE(steps[k] == want[k]);
        REQUIRE(runPricesAlike(*source, p, c, k, want));
      }
    }
  }
  return read;
}

}  // namespace

void checkCollective(const algo::Algorithm& algorithm, algo::CollectiveArgs args, const Rules& rules) {
  std::vector<algo::CollectiveArgs> ranks(args.nranks, args);
  for (int r = 0; r < args.nranks; ++r) ranks[r].rank = r;
  checkRanks(algorithm, ranks, rules);
}

void checkRanks(const algo::Algorithm& algorithm, const std::vector<algo::CollectiveArgs>& ranks, const Rules& rules) {
  algo::CollectiveArgs args = ranks[0];
  const int n = args.nranks;
  std::vector<algo::Schedule> schedules;
  std::vector<RankBuffers> buffers;
  INFO(describe(args, algorithm.name()));
  for (int r = 0; r < n; ++r) {
    INFO("rank " << r);
    schedules.push_back(stepsReadBackwards(algorithm, ranks[r], algorithm.build(ranks[r])));
    buffers.push_back(isNew(args.collective) ? makeNewBuffers(ranks, r)
                                             : makeBuffers(args.collective, args.count, n, r, args.inPlace));
  }
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
    for (size_t i = 0; i < buffers[r].recvSize; ++i) {
      INFO("element " << i);
      std::optional<double> want;
      if (isNew(args.collective))
        want = expectedNew(ranks, r, i);
      else if (args.collective != Collective::Reduce || r == args.root)
        want = expected(args, r, i);
      REQUIRE(buffers[r].recvWrites[i] == (want ? 1 : 0));
      if (want) REQUIRE(buffers[r].recv(i) == *want);
    }
  }
}

void sweepGroup(const algo::Algorithm& algorithm, Collective collective, const algo::CollectiveArgs& group,
                const Rules& rules) {
  const bool rooted = collective == Collective::Broadcast || collective == Collective::Reduce ||
                      collective == Collective::Gather || collective == Collective::Scatter;
  const int patterns = takesRankArguments(collective) ? kUnevenPatterns : 1;
  // All-to-all-v has no in-place form (the API refuses overlapping buffers).
  const std::vector<bool> placements =
      collective == Collective::AllToAllV ? std::vector<bool>{false} : std::vector<bool>{false, true};
  const int n = group.nranks;
  for (size_t count : {0, 1, 3, 17, 64}) {
    for (int op = 0; op < (algo::reduces(collective) ? trncclNumOps : 1); ++op) {
      for (bool inPlace : placements) {
        for (int root : rooted ? std::vector<int>{0, n / 2, n - 1} : std::vector<int>{0}) {
          for (size_t maxStep : {size_t{0}, size_t{2}, size_t{5}}) {
            for (int pattern = 0; pattern < patterns; ++pattern) {
              algo::CollectiveArgs args = group;
              args.maxStepElements = maxStep;
              args.collective = collective;
              args.count = count;
              args.op = static_cast<trncclRedOp_t>(op);
              args.root = root;
              args.inPlace = inPlace;
              INFO("pattern " << pattern);
              if (patterns > 1)
                checkRanks(algorithm, unevenCall(args, pattern), rules);
              else
                checkCollective(algorithm, args, rules);
            }
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

algo::RankLayout chipLayout(int gridWidth, int gridHeight, int ranksPerChip, bool scrambled) {
  algo::RankLayout layout;
  layout.gridWidth = gridWidth;
  layout.gridHeight = gridHeight;
  layout.ranksPerChip = ranksPerChip;
  layout.grid.resize(gridWidth * gridHeight);
  std::iota(layout.grid.begin(), layout.grid.end(), 0);
  if (scrambled) std::shuffle(layout.grid.begin(), layout.grid.end(), std::mt19937(gridWidth * 100 + gridHeight));
  return layout;
}

ChipPlace chipPlace(const algo::RankLayout& layout, int rank) {
  const int i = static_cast<int>(std::find(layout.grid.begin(), layout.grid.end(), rank) - layout.grid.begin());
  const int x = i % layout.gridWidth;
  return {x / layout.ranksPerChip, i / layout.gridWidth, x % layout.ranksPerChip};
}

void sweep(const algo::Algorithm& algorithm, Collective collective, const Rules& rules) {
  for (int n : {1, 2, 3, 4, 5, 6, 7, 8, 16}) {
    algo::CollectiveArgs group;
    group.nranks = n;
    sweepGroup(algorithm, collective, group, rules);
  }
}

}  // namespace trnccl::test
