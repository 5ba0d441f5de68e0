#include "algorithms/kangaring.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "algorithms/rank_grid.h"
#include "algorithms/registry.h"
#include "algorithms/ring_pass.h"
#include "base/error.h"

namespace trnccl::algo {
namespace {

constexpr int kSearchBound = 1 << 14;  // search moves before settling for a snake
// Tag slots: ring channel c takes slot c (four at most), then these two.
constexpr int kToPrimary = 4, kFromPrimary = 5;

using Graph = std::vector<std::vector<int>>;  // each chip's neighbours

// Each chip's distinct neighbours on the X x Y torus, in the order +x, -x, +y, -y.
Graph torus(int X, int Y) {
  Graph g(X * Y);
  for (int y = 0; y < Y; ++y)
    for (int x = 0; x < X; ++x) {
      std::vector<int>& near = g[y * X + x];
      for (int v : {y * X + mod(x + 1, X), y * X + mod(x - 1, X), mod(y + 1, Y) * X + x, mod(y - 1, Y) * X + x})
        if (v != y * X + x && std::find(near.begin(), near.end(), v) == near.end()) near.push_back(v);
    }
  return g;
}

// On a torus where every chip has four neighbours, the links `cycle` leaves
// are two per chip; the cycle they form from chip 0, if it passes every chip
// (else empty).
std::vector<int> otherCycle(const Graph& g, const std::vector<int>& cycle) {
  const int n = static_cast<int>(g.size());
  std::vector<int> at(n);
  for (int i = 0; i < n; ++i) at[cycle[i]] = i;
  auto inCycle = [&](int a, int b) { return mod(at[a] - at[b], n) == 1 || mod(at[b] - at[a], n) == 1; };
  std::vector<int> rest{0};
  for (int previous = -1;;) {
    const int last = rest.back();
    const int next =
        *std::find_if(g[last].begin(), g[last].end(), [&](int v) { return v != previous && !inCycle(last, v); });
    if (next == 0) break;
    previous = last;
    rest.push_back(next);
  }
  return rest.size() == g.size() ? rest : std::vector<int>{};
}

// Edge-disjoint Hamiltonian cycles of the X x Y chip torus, as chip lists:
// depth first from chip 0, neighbours in torus() order, for a cycle (and,
// where every chip has four neighbours, one whose leftover links form a
// second cycle); a line of chips is its ring. Deterministic, so every rank
// finds the same cycles.
std::vector<std::vector<int>> chipCycles(int X, int Y) {
  if (X == 1 || Y == 1) return {allRanks(X * Y)};
  const Graph g = torus(X, Y);
  const bool two = std::all_of(g.begin(), g.end(), [](const std::vector<int>& near) { return near.size() == 4; });
  std::vector<int> path{0};
  std::vector<size_t> tried{0};  // per chip on the path: its neighbours tried so far
  std::vector<bool> visited(g.size());
  visited[0] = true;
  for (int moves = 0; !path.empty() && moves < kSearchBound; ++moves) {
    const int last = path.back();
    if (path.size() == g.size() && std::find(g[last].begin(), g[last].end(), 0) != g[last].end()) {
      if (!two) return {path};
      if (std::vector<int> other = otherCycle(g, path); !other.empty()) return {path, other};
    }
    size_t& i = tried.back();
    while (i < g[last].size() && visited[g[last][i]]) ++i;
    if (i < g[last].size()) {
      const int next = g[last][i++];
      visited[next] = true;
      path.push_back(next);
      tried.push_back(0);
    } else {
      visited[last] = false;
      path.pop_back();
      tried.pop_back();
    }
  }
  std::vector<int> snake;
  for (int y = 0; y < Y; ++y)
    for (int x = 0; x < X; ++x) snake.push_back(y * X + (y % 2 ? X - 1 - x : x));
  return {snake};
}

// Appends `step` once per chunk of at most maxStep of `length` elements (one
// chunk when maxStep is 0), its spans and tags moved to the chunk's.
void appendChunks(const Step& step, size_t length, size_t maxStep, std::vector<Step>& steps) {
  const size_t chunk = maxStep ? maxStep : std::max<size_t>(length, 1);
  if ((length + chunk - 1) / chunk > TagRange::kSlotSize)
    throwError(trncclInvalidUsage, "kangaring: " + std::to_string(length) + " elements in steps of " +
                                       std::to_string(chunk) +
                                       " need more message tags than it has; raise the step size");
  for (size_t begin = 0; begin < length; begin += chunk) {
    Step s = step;
    s.count = std::min(chunk, length - begin);
    for (Span& src : s.srcs) src.offset += begin;
    if (s.dst.buffer != kNone) s.dst.offset += begin;
    s.recvTag += static_cast<uint32_t>(begin / chunk);
    s.sendTag += static_cast<uint32_t>(begin / chunk);
    steps.push_back(std::move(s));
  }
}

// One rank's schedule. Chips are numbered row-major on their torus; chip i's
// ranks are cores_[i], its primary first.
class Builder {
 public:
  explicit Builder(const CollectiveArgs& args) : args_(args) {
    const int n = args.nranks;
    if (args.layout && args.layout->hasGrid()) {
      const RankGrid grid = gridFor(args);
      const int k = args.layout->ranksPerChip;
      width_ = grid.width / k;
      height_ = grid.height;
      for (int y = 0; y < height_; ++y)
        for (int x = 0; x < width_; ++x) {
          std::vector<int>& cores = cores_.emplace_back();
          for (int j = 0; j < k; ++j) cores.push_back(grid.at(x * k + j, y));
        }
    } else {
      width_ = n;
      for (int r = 0; r < n; ++r) cores_.push_back({r});
    }
    for (int c = 0; c < static_cast<int>(cores_.size()); ++c)
      for (int j = 0; j < k(); ++j)
        if (cores_[c][j] == args.rank) chip_ = c, core_ = j;
    // What a secondary hands over, and what it gets back.
    const size_t count = args.count;
    handed_ = args.collective == Collective::ReduceScatter ? count * n : count;
    returned_ = args.collective == Collective::AllGather ? count * n : count;
  }

  // Every rank gets the same phases, empty where it has no part, so that the
  // phases of all ranks line up (the cost model prices phase by phase).
  Schedule build() const {
    Schedule s = singleChannelSchedule(args_, KangaRing::kName);
    s.phases.clear();
    if (core_ == 0 && reduces() && k() > 1) s.scratchElements = handed_ * (k() - 1);
    if (k() > 1 && lastGathered() > 0) gather(phase(s));
    if (k() > 1 && reduces()) reduce(phase(s));
    if (chips() > 1 || reduces()) ring(phase(s));
    if (k() > 1) handBack(phase(s));
    // Drop the channels with nothing to do (a count smaller than the channels).
    for (Phase& p : s.phases) std::erase_if(p.channels, [](const Channel& c) { return c.steps.empty(); });
    return s;
  }

 private:
  int k() const { return static_cast<int>(cores_[0].size()); }
  int chips() const { return static_cast<int>(cores_.size()); }
  int primary() const { return cores_[chip_][0]; }
  bool reduces() const { return args_.collective != Collective::AllGather; }
  static Phase& phase(Schedule& s) { return s.phases.emplace_back(); }
  // The primary's reduction of its chip's data (scratch slot 0), and where it
  // receives secondary j's before reducing it (slot j).
  Span slot(int j) const { return Span{kScratch, handed_ * j}; }
  // The reductions reduce the last secondary's data as it arrives; the
  // secondaries before it are gathered first.
  int lastGathered() const { return reduces() ? k() - 2 : k() - 1; }

  // Secondary core_ sends its data to the primary.
  void handOver(Phase& phase) const {
    Step send;
    send.sendPeer = primary();
    send.sendTag = TagRange::slot(kToPrimary).first;
    send.srcs = {Span{kSend, 0}};
    appendChunks(send, handed_, args_.maxStepElements, phase.channels.emplace_back().steps);
  }

  // The hand-over's first phase: the primary receives secondaries
  // 1..lastGathered(), all-gather's in place, the reductions' into scratch;
  // all-gather copies its own block.
  void gather(Phase& phase) const {
    if (core_ > 0) {
      if (core_ <= lastGathered()) handOver(phase);
      return;
    }
    for (int j = 1; j <= lastGathered(); ++j) {
      Step recv;
      recv.recvPeer = cores_[chip_][j];
      recv.recvTag = TagRange::slot(kToPrimary).first;
      recv.dst = reduces() ? slot(j) : Span{kRecv, args_.count * recv.recvPeer};
      appendChunks(recv, handed_, args_.maxStepElements, phase.channels.emplace_back().steps);
    }
    if (!reduces()) {
      Step own;
      own.srcs = {Span{kSend, 0}};
      own.dst = Span{kRecv, args_.count * args_.rank};
      own.count = args_.count;
      phase.channels.push_back(Channel{{own}});
    }
  }

  // The reductions' second hand-over phase: as the last secondary's data
  // arrives, the primary reduces its own, then its secondaries' in order,
  // into slot 0.
  void reduce(Phase& phase) const {
    const int last = k() - 1;
    if (core_ > 0) {
      if (core_ == last) handOver(phase);
      return;
    }
    Step step;
    step.recvPeer = cores_[chip_][last];
    step.recvTag = TagRange::slot(kToPrimary).first;
    step.reduce = true;
    step.final = chips() == 1;  // else the ring reduces last
    step.srcs = {Span{kSend, 0}};
    for (int j = 1; j < last; ++j) step.srcs.push_back(slot(j));
    step.dst = slot(0);
    appendChunks(step, handed_, args_.maxStepElements, phase.channels.emplace_back().steps);
  }

  // The primaries' ring over the chip cycles, channel c carrying part c of
  // the data (of the buffer for all-reduce, of every rank's block otherwise).
  // One chip: the primary's own result is already in scratch.
  void ring(Phase& phase) const {
    if (core_ > 0) return;
    const size_t count = args_.count;
    const Span reduced = k() > 1 ? slot(0) : Span{kSend, 0};
    if (chips() == 1) {
      if (!reduces()) return;
      Step copy;
      copy.srcs = {Span{kScratch, args_.collective == Collective::AllReduce ? 0 : count * args_.rank}};
      copy.dst = Span{kRecv, 0};
      copy.count = count;
      phase.channels.push_back(Channel{{copy}});
      return;
    }
    const auto cycles = chipCycles(width_, height_);
    const int channels = 2 * static_cast<int>(cycles.size());
    std::vector<int> primaries(chips());
    for (int c = 0; c < channels; ++c) {
      const std::vector<int>& cycle = cycles[c / 2];
      for (int b = 0; b < chips(); ++b) primaries[b] = cores_[cycle[b]][0];
      const int position = static_cast<int>(std::find(cycle.begin(), cycle.end(), chip_) - cycle.begin());
      const RingMembers members{primaries, position, c % 2 ? -1 : 1};
      const size_t partBegin = blockBegin(count, channels, c), partLength = blockSize(count, channels, c);
      std::vector<Step>& steps = phase.channels.emplace_back().steps;
      if (args_.collective == Collective::AllReduce) {
        const int m = chips();
        auto at = [=](Span base) {
          return PieceAt([=](int b, int) {
            return Span{base.buffer, base.offset + partBegin + blockBegin(partLength, m, b)};
          });
        };
        RingPass(members, RingBlocks{1, [=](int b) { return blockSize(partLength, m, b); }}, args_.maxStepElements)
            .allReduce(at(reduced), at(Span{kRecv, 0}), TagRange::slot(c), steps);
        continue;
      }
      // Block b is chip cycle[b]'s: piece p is the part of its core p's block.
      auto blocks = [=, this](Span base) {
        return PieceAt([=, this](int b, int p) {
          return Span{base.buffer, base.offset + count * cores_[cycle[b]][p] + partBegin};
        });
      };
      const RingPass pass(members, RingBlocks{k(), [=](int) { return partLength; }}, args_.maxStepElements);
      if (args_.collective == Collective::ReduceScatter) {
        // The secondaries' results stay in scratch, for the hand-back.
        const PieceAt scratch = blocks(slot(0));
        const PieceAt result = [=](int b, int p) { return p == 0 ? Span{kRecv, partBegin} : scratch(b, p); };
        pass.reduceScatter(blocks(reduced), result, true, TagRange::slot(c), steps);
      } else {
        const Span own{kSend, partBegin};
        pass.allGather(blocks(Span{kRecv, 0}), k() > 1 ? PieceAt() : PieceAt([own](int, int) { return own; }),
                       TagRange::slot(c), steps);
      }
    }
  }

  // Last, each secondary gets its result from the primary.
  void handBack(Phase& phase) const {
    const uint32_t tag = TagRange::slot(kFromPrimary).first;
    if (core_ > 0) {
      Step recv;
      recv.recvPeer = primary();
      recv.recvTag = tag;
      recv.dst = Span{kRecv, 0};
      appendChunks(recv, returned_, args_.maxStepElements, phase.channels.emplace_back().steps);
      return;
    }
    for (int j = 1; j < k(); ++j) {
      Step send;
      send.sendPeer = cores_[chip_][j];
      send.sendTag = tag;
      send.srcs = {args_.collective == Collective::ReduceScatter ? Span{kScratch, args_.count * send.sendPeer}
                                                                 : Span{kRecv, 0}};
      appendChunks(send, returned_, args_.maxStepElements, phase.channels.emplace_back().steps);
    }
  }

  const CollectiveArgs& args_;
  int width_ = 1, height_ = 1;  // the chip torus
  std::vector<std::vector<int>> cores_;
  int chip_ = 0, core_ = 0;           // this rank's chip, and its place among the chip's cores
  size_t handed_ = 0, returned_ = 0;  // elements a secondary hands over and gets back
};

}  // namespace

std::string KangaRing::whyUnsupported(const CollectiveArgs& args) const {
  switch (args.collective) {
    case Collective::AllReduce:
    case Collective::AllGather:
    case Collective::ReduceScatter:
      break;
    default:
      return std::string("kangaring does not implement ") + collectiveName(args.collective);
  }
  if (!args.layout || !args.layout->hasGrid()) return {};
  if (const std::string why = whyBadGrid(*args.layout, args.nranks); !why.empty()) return "kangaring: " + why;
  const int k = args.layout->ranksPerChip;
  if (k < 1 || args.layout->gridWidth % k != 0)
    return "kangaring: the layout's " + std::to_string(args.layout->gridWidth) + " columns do not make chips of " +
           std::to_string(k) + " cores";
  return {};
}

Schedule KangaRing::build(const CollectiveArgs& args) const {
  if (const std::string why = whyUnsupported(args); !why.empty()) throwError(trncclInternalError, why);
  if (args.nranks == 1) return localCopySchedule(args, name());
  return Builder(args).build();
}

TRNCCL_REGISTER_ALGORITHMS(kangaring, {Reach::AnyRanks, make<KangaRing>, 5})

}  // namespace trnccl::algo
