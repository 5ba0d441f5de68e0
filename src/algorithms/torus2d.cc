#include "algorithms/torus2d.h"

#include <functional>
#include <utility>
#include <vector>

#include "algorithms/rank_grid.h"
#include "algorithms/registry.h"
#include "algorithms/ring_pass.h"

namespace trnccl::algo {
namespace {

constexpr int kChannels = 4;  // two halves of the data x two ring directions
constexpr int kPasses = 4;    // per channel: two reduce-scatters, two all-gathers

// This rank's ring along one dimension of the grid.
struct Line {
  std::vector<int> ranks;  // the row's or column's ranks in coordinate order
  int position = 0;        // this rank's coordinate along it
  int size() const { return static_cast<int>(ranks.size()); }
};

// One channel's data as A x B cells, A along the first dimension it crosses
// and B along the second: cell (a, b) is reduced at, or gathered from, the
// rank at coordinate a along the first dimension and b along the second. The
// first-dimension passes move stripes: stripe a is the cells (a, 0..B-1), the
// data of the ranks in one line of the second dimension.
struct Cells {
  // Where cell (a, b) lies in the buffer that holds every rank's cells (the
  // send buffer for reductions, the receive buffer for gathers), and its length.
  std::function<size_t(int a, int b)> offset, length;
  // A stripe's cells follow each other, so a first-dimension pass moves it as
  // one piece of stripeLength(a) elements; otherwise as B pieces of equal length.
  bool adjacentStripes = false;
  std::function<size_t(int a)> stripeLength;
  Span ownResult;  // where this rank's cell goes once reduced
  Span ownSource;  // where a gather reads this rank's cell (kNone: already in place)
};

// The passes of one channel, as seen from this rank.
class ChannelPlan {
 public:
  ChannelPlan(Line first, Line second, int direction, Cells cells, size_t maxStepElements, size_t scratchAt)
      : first_(std::move(first)),
        second_(std::move(second)),
        direction_(direction),
        cells_(std::move(cells)),
        maxStep_(maxStepElements),
        scratchAt_(scratchAt) {}

  // The first reduce-scatter leaves this rank's stripe in scratch when a
  // second one follows.
  size_t scratchElements(bool reduce) const {
    return reduce && first_.size() > 1 && second_.size() > 1 ? stripeLength(a()) : 0;
  }

  // Appends the passes that run, the i-th of them to passes[i].
  void build(bool reduce, bool gather, int channel, std::vector<std::vector<Step>>& passes) const {
    int pass = 0;
    auto next = [&]() -> std::vector<Step>& { return passes[pass++]; };
    auto tags = [&](int i) { return TagRange::slot(channel * kPasses + i); };
    const bool acrossFirst = first_.size() > 1, acrossSecond = second_.size() > 1;
    const bool fromSource = cells_.ownSource.buffer != kNone;
    const PieceAt inPlace;
    if (reduce && acrossFirst) {
      const PieceAt result =
          acrossSecond ? PieceAt([this](int, int p) { return scratchCell(p); }) : fixed(cells_.ownResult);
      firstRing().reduceScatter(firstPieces(kSend), result, !acrossSecond, tags(0), next());
    }
    if (reduce && acrossSecond) {
      const PieceAt inputs = acrossFirst ? PieceAt([this](int b, int) { return scratchCell(b); }) : secondPieces(kSend);
      secondRing().reduceScatter(inputs, fixed(cells_.ownResult), true, tags(1), next());
    }
    if (gather && acrossSecond)
      secondRing().allGather(secondPieces(kRecv), fromSource ? fixed(cells_.ownSource) : inPlace, tags(2), next());
    if (gather && acrossFirst) {
      const PieceAt ownInput = fromSource && !acrossSecond ? fixed(cells_.ownSource) : inPlace;
      firstRing().allGather(firstPieces(kRecv), ownInput, tags(3), next());
    }
  }

 private:
  int a() const { return first_.position; }
  // Its B cells, summed (cells of a stripe are of equal length unless adjacent).
  size_t stripeLength(int r) const {
    return cells_.adjacentStripes ? cells_.stripeLength(r) : second_.size() * cells_.length(r, 0);
  }
  // Block r of a first-dimension pass is stripe r: one piece, or B pieces
  // where piece p is cell (r, p).
  RingPass firstRing() const {
    RingBlocks blocks{1, [this](int r) { return stripeLength(r); }};
    if (!cells_.adjacentStripes) blocks = {second_.size(), [this](int r) { return cells_.length(r, 0); }};
    return RingPass(RingMembers{first_.ranks, first_.position, direction_}, std::move(blocks), maxStep_);
  }
  PieceAt firstPieces(uint16_t buffer) const {
    return [this, buffer](int r, int p) { return Span{buffer, cells_.offset(r, p)}; };
  }
  // Block b of a second-dimension pass is cell (a, b) of this rank's stripe.
  RingPass secondRing() const {
    return RingPass(RingMembers{second_.ranks, second_.position, direction_},
                    RingBlocks{1, [this](int b) { return cells_.length(a(), b); }}, maxStep_);
  }
  PieceAt secondPieces(uint16_t buffer) const {
    return [this, buffer](int b, int) { return Span{buffer, cells_.offset(a(), b)}; };
  }
  static PieceAt fixed(Span at) {
    return [at](int, int) { return at; };
  }
  // Where cell (a, b) of this rank's stripe lies in scratch between the reduce-scatters.
  Span scratchCell(int b) const {
    const size_t within =
        cells_.adjacentStripes ? cells_.offset(a(), b) - cells_.offset(a(), 0) : cells_.length(a(), 0) * b;
    return Span{kScratch, scratchAt_ + within};
  }

  Line first_, second_;
  int direction_;
  Cells cells_;
  size_t maxStep_, scratchAt_;
};

// Channel c's cells, for a rank at `first`.position, `second`.position: the
// data is split into four parts, one per channel; part c of the buffer for
// all-reduce, part c of every rank's block otherwise.
Cells cellsOf(const CollectiveArgs& args, const RankGrid& grid, bool rowsFirst, int c, const Line& first,
              const Line& second) {
  const size_t count = args.count;
  const size_t partBegin = blockBegin(count, kChannels, c), partLength = blockSize(count, kChannels, c);
  const int A = first.size(), B = second.size();
  Cells cells;
  if (args.collective == Collective::AllReduce) {
    // Stripe a is block a of the part; cell (a, b) is block b of that.
    cells.offset = [=](int a, int b) {
      return partBegin + blockBegin(partLength, A, a) + blockBegin(blockSize(partLength, A, a), B, b);
    };
    cells.length = [=](int a, int b) { return blockSize(blockSize(partLength, A, a), B, b); };
    cells.adjacentStripes = true;
    cells.stripeLength = [=](int a) { return blockSize(partLength, A, a); };
    cells.ownResult = Span{kRecv, cells.offset(first.position, second.position)};
    return cells;
  }
  // Cell (a, b) is the part of the block of the rank at (a, b).
  cells.offset = [=, &grid](int a, int b) { return count * (rowsFirst ? grid.at(a, b) : grid.at(b, a)) + partBegin; };
  cells.length = [=](int, int) { return partLength; };
  if (args.collective == Collective::ReduceScatter)
    cells.ownResult = Span{kRecv, partBegin};
  else
    cells.ownSource = Span{kSend, partBegin};
  return cells;
}

}  // namespace

std::string Torus2d::whyUnsupported(const CollectiveArgs& args) const {
  switch (args.collective) {
    case Collective::AllReduce:
    case Collective::AllGather:
    case Collective::ReduceScatter:
      if (const std::string why = args.layout ? whyBadGrid(*args.layout, args.nranks) : ""; !why.empty())
        return "torus2d: " + why;
      return {};
    default:
      return std::string("torus2d does not implement ") + collectiveName(args.collective);
  }
}

Schedule Torus2d::build(const CollectiveArgs& args) const {
  if (args.nranks == 1) return localCopySchedule(args, name());
  const RankGrid grid = gridFor(args);
  const int x = grid.xOf(args.rank), y = grid.yOf(args.rank);
  const Line row{grid.row(y), x}, column{grid.column(x), y};
  const bool reduce = args.collective != Collective::AllGather;
  const bool gather = args.collective != Collective::ReduceScatter;

  Schedule s = singleChannelSchedule(args, name());
  // passes[c][i]: channel c's i-th pass, which runs in phase i.
  std::vector<std::vector<std::vector<Step>>> passes(kChannels, std::vector<std::vector<Step>>(kPasses));
  for (int c = 0; c < kChannels; ++c) {
    // Channels 0 and 1 go rows first, 2 and 3 columns first; even channels
    // send to higher coordinates, odd ones to lower.
    const bool rowsFirst = c < 2;
    const Line& first = rowsFirst ? row : column;
    const Line& second = rowsFirst ? column : row;
    const ChannelPlan plan(first, second, c % 2 ? -1 : 1, cellsOf(args, grid, rowsFirst, c, first, second),
                           args.maxStepElements, s.scratchElements);
    s.scratchElements += plan.scratchElements(reduce);
    plan.build(reduce, gather, c, passes[c]);
  }
  s.phases.clear();
  for (int p = 0; p < kPasses; ++p) {
    Phase phase;
    for (int c = 0; c < kChannels; ++c)
      if (!passes[c][p].empty()) phase.channels.push_back(Channel{std::move(passes[c][p])});
    if (!phase.channels.empty()) s.phases.push_back(std::move(phase));
  }
  return s;
}

TRNCCL_REGISTER_ALGORITHMS(torus2d, {Reach::AnyRanks, make<Torus2d>, 2})

}  // namespace trnccl::algo
