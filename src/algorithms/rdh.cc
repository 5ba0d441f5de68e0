#include "algorithms/rdh.h"

#include <bit>

#include "algorithms/registry.h"

namespace trnccl::algo {
namespace {

// Survivors are numbered by virtual rank v: v < r is rank 2v+1 (which absorbs
// rank 2v), v >= r is rank v+r. Elements are numbered across the collective's
// whole vector (all-reduce: the buffer; reduce-scatter: the send buffer;
// all-gather: the receive buffer), and virtual rank v owns elements
// [begin(v), begin(v+1)): contiguous, so every group of survivors that RDH
// forms owns one contiguous range. For reduce-scatter and all-gather that is
// the blocks of the ranks the survivor stands for; for all-reduce, block v of p.
//
// Every rank gets the same phases, one per stage (empty where it has no part),
// so stage k of all ranks lines up for the cost model. Each phase holds one
// single-step channel per message or copy: a level's send and its receive run
// concurrently, and no channel has two steps that could touch the same data.
class RdhBuilder {
 public:
  RdhBuilder(const CollectiveArgs& args, Schedule& schedule);

  void foldInputs();     // reducing collectives: ranks sitting out hand over their input
  void collectInputs();  // all-gather: the same, plus every survivor's own block
  void halve();          // reduce-scatter by recursive halving, levels_ phases
  void doubleUp();       // all-gather by recursive doubling, levels_ phases
  void handBack();       // the ranks that sat out receive the result

 private:
  // Part of a range that travels as one message, and the rank whose result it is.
  struct Piece {
    size_t begin, end;
    int owner;
  };

  bool sitsOut() const { return v_ < 0; }
  bool absorbs() const { return v_ >= 0 && v_ < r_; }
  int rankOf(int v) const { return v < r_ ? 2 * v + 1 : v + r_; }
  size_t begin(int v) const { return perRankBlocks_ ? count_ * (v < r_ ? 2 * v : v + r_) : blockBegin(count_, p_, v); }
  // Tags: two per stage, for a range sent in two pieces. Stage 0 is the fold,
  // 1..levels_ halving, then doubling, then the hand-back.
  static uint32_t tag(int stage, size_t piece = 0) { return static_cast<uint32_t>(2 * stage + piece); }
  int handBackStage() const { return 1 + 2 * levels_; }
  Span at(uint16_t buffer, size_t element) const;
  // The range of the aligned group of `size` survivors that holds virtual
  // rank v. At the last halving level (size 1) a reduce-scatter survivor's
  // range is split into the blocks of the ranks it stands for, whose results
  // end at different ranks.
  std::vector<Piece> pieces(int v, int size, bool splitByRank) const;
  void add(Phase& phase, const Step& step) const;

  const CollectiveArgs& args_;
  Schedule& s_;
  int rank_, n_, p_, r_, levels_, v_;
  size_t count_;
  bool perRankBlocks_;  // reduce-scatter and all-gather: blocks of `count` at rank * count
  size_t total_;        // elements of the whole vector
  size_t sendBase_ = 0, recvBase_ = 0, scratchBase_ = 0;  // first element each buffer holds
};

Step sending(int to, uint32_t tag, Span src, size_t count) {
  Step s;
  s.sendPeer = to;
  s.sendTag = tag;
  s.srcs = {src};
  s.count = count;
  return s;
}

Step receiving(int from, uint32_t tag, size_t count) {
  Step s;
  s.recvPeer = from;
  s.recvTag = tag;
  s.count = count;
  return s;
}

RdhBuilder::RdhBuilder(const CollectiveArgs& args, Schedule& schedule)
    : args_(args),
      s_(schedule),
      rank_(args.rank),
      n_(args.nranks),
      p_(static_cast<int>(std::bit_floor(static_cast<unsigned>(args.nranks)))),
      r_(n_ - p_),
      levels_(std::countr_zero(static_cast<unsigned>(p_))),
      v_(rank_ < 2 * r_ ? (rank_ % 2 ? rank_ / 2 : -1) : rank_ - r_),
      count_(args.count),
      perRankBlocks_(args.collective != Collective::AllReduce),
      total_(perRankBlocks_ ? args.count * n_ : args.count) {
  if (args.collective == Collective::AllGather) sendBase_ = count_ * rank_;
  if (args.collective == Collective::ReduceScatter) recvBase_ = count_ * rank_;
  if (args.collective == Collective::AllGather || sitsOut()) return;
  // Partial reductions live in scratch: all of the folded input, or from the
  // first level on the half this rank keeps (the last level writes results).
  if (absorbs()) {
    s_.scratchElements = total_;
  } else if (levels_ >= 2) {
    const int half = v_ & (p_ / 2);
    scratchBase_ = begin(half);
    s_.scratchElements = begin(half + p_ / 2) - scratchBase_;
  }
}

Span RdhBuilder::at(uint16_t buffer, size_t element) const {
  const size_t base = buffer == kSend ? sendBase_ : buffer == kRecv ? recvBase_ : scratchBase_;
  return Span{buffer, element - base};
}

std::vector<RdhBuilder::Piece> RdhBuilder::pieces(int v, int size, bool splitByRank) const {
  const int first = v & ~(size - 1);
  const size_t b = begin(first), e = begin(first + size);
  if (splitByRank && perRankBlocks_ && v < r_) return {{b, b + count_, 2 * v}, {b + count_, e, 2 * v + 1}};
  return {{b, e, rankOf(v)}};
}

void RdhBuilder::add(Phase& phase, const Step& step) const {
  if (step.count > 0) phase.channels.push_back(Channel{{step}});
}

void RdhBuilder::foldInputs() {
  Phase& phase = s_.phases.emplace_back();
  if (sitsOut()) {
    add(phase, sending(rank_ + 1, tag(0), at(kSend, 0), total_));
  } else if (absorbs()) {
    Step fold = receiving(rank_ - 1, tag(0), total_);
    fold.reduce = true;
    fold.srcs = {at(kSend, 0)};
    fold.dst = at(kScratch, 0);
    add(phase, fold);
  }
}

void RdhBuilder::collectInputs() {
  Phase& phase = s_.phases.emplace_back();
  const size_t own = count_ * rank_;
  if (sitsOut()) {
    add(phase, sending(rank_ + 1, tag(0), at(kSend, own), count_));
    return;
  }
  Step copy;
  copy.srcs = {at(kSend, own)};
  copy.dst = at(kRecv, own);
  copy.count = count_;
  add(phase, copy);
  if (absorbs()) {
    Step partner = receiving(rank_ - 1, tag(0), count_);
    partner.dst = at(kRecv, own - count_);
    add(phase, partner);
  }
}

void RdhBuilder::halve() {
  uint16_t from = absorbs() ? kScratch : kSend;  // where the range being halved lives
  for (int level = 0; level < levels_; ++level) {
    Phase& phase = s_.phases.emplace_back();
    if (sitsOut()) continue;
    const int distance = p_ >> (level + 1), partner = v_ ^ distance, peer = rankOf(partner);
    const bool last = distance == 1;
    const int stage = 1 + level;
    const auto out = pieces(partner, distance, last);
    for (size_t i = 0; i < out.size(); ++i)
      add(phase, sending(peer, tag(stage, i), at(from, out[i].begin), out[i].end - out[i].begin));
    const auto kept = pieces(v_, distance, last);
    for (size_t i = 0; i < kept.size(); ++i) {
      Step in = receiving(peer, tag(stage, i), kept[i].end - kept[i].begin);
      in.reduce = true;
      in.final = last;
      in.srcs = {at(from, kept[i].begin)};
      if (!last) {
        in.dst = at(kScratch, kept[i].begin);
      } else if (kept[i].owner == rank_) {
        in.dst = at(kRecv, kept[i].begin);
      } else {
        // The block of the rank this one absorbed (reduce-scatter) goes straight back.
        in.sendPeer = kept[i].owner;
        in.sendTag = tag(handBackStage());
      }
      add(phase, in);
    }
    from = kScratch;
  }
  if (sitsOut() && args_.collective == Collective::ReduceScatter) {
    Step result = receiving(rank_ + 1, tag(handBackStage()), count_);
    result.dst = at(kRecv, count_ * rank_);
    add(s_.phases.back(), result);
  }
}

void RdhBuilder::doubleUp() {
  for (int level = 0; level < levels_; ++level) {
    Phase& phase = s_.phases.emplace_back();
    if (sitsOut()) continue;
    const int distance = 1 << level, partner = v_ ^ distance, peer = rankOf(partner);
    const int stage = 1 + levels_ + level;
    const Piece mine = pieces(v_, distance, false)[0], theirs = pieces(partner, distance, false)[0];
    add(phase, sending(peer, tag(stage), at(kRecv, mine.begin), mine.end - mine.begin));
    Step in = receiving(peer, tag(stage), theirs.end - theirs.begin);
    in.dst = at(kRecv, theirs.begin);
    add(phase, in);
  }
}

void RdhBuilder::handBack() {
  Phase& phase = s_.phases.emplace_back();
  if (sitsOut()) {
    Step result = receiving(rank_ + 1, tag(handBackStage()), total_);
    result.dst = at(kRecv, 0);
    add(phase, result);
  } else if (absorbs()) {
    add(phase, sending(rank_ - 1, tag(handBackStage()), at(kRecv, 0), total_));
  }
}

}  // namespace

std::string Rdh::whyUnsupported(const CollectiveArgs& args) const {
  switch (args.collective) {
    case Collective::AllReduce:
    case Collective::AllGather:
    case Collective::ReduceScatter:
      return {};
    default:
      return std::string("rdh does not implement ") + collectiveName(args.collective);
  }
}

Schedule Rdh::build(const CollectiveArgs& args) const {
  if (args.nranks == 1) return localCopySchedule(args, name());
  Schedule s = singleChannelSchedule(args, name());
  s.phases.clear();
  RdhBuilder rdh(args, s);
  const bool uneven = !std::has_single_bit(static_cast<unsigned>(args.nranks));
  switch (args.collective) {
    case Collective::AllReduce:
      if (uneven) rdh.foldInputs();
      rdh.halve();
      rdh.doubleUp();
      if (uneven) rdh.handBack();
      break;
    case Collective::ReduceScatter:
      // The blocks of the ranks that sat out go back from the last halving level.
      if (uneven) rdh.foldInputs();
      rdh.halve();
      break;
    case Collective::AllGather:
      rdh.collectInputs();
      rdh.doubleUp();
      if (uneven) rdh.handBack();
      break;
    default:
      break;
  }
  return s;
}

TRNCCL_REGISTER_ALGORITHMS(rdh, {Reach::AnyRanks, make<Rdh>, 3})

}  // namespace trnccl::algo
