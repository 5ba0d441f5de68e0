#include "algorithms/ring_pass.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "algorithms/algorithm.h"
#include "base/error.h"

namespace trnccl::algo {

int RingMembers::sendsTo() const { return ranks[mod(position + direction, size())]; }
int RingMembers::receivesFrom() const { return ranks[mod(position - direction, size())]; }

namespace {

// Room for `more` steps, growing geometrically: a schedule may append many passes.
void reserveFor(std::vector<Step>& steps, size_t more) {
  if (steps.size() + more > steps.capacity()) steps.reserve(std::max(steps.size() + more, 2 * steps.capacity()));
}

}  // namespace

RingBlocks RingBlocks::even(EvenSplit split) {
  return RingBlocks{1, [split](int b) { return split.size(b); }, split};
}

std::vector<int> allRanks(int n) {
  std::vector<int> ranks(n);
  std::iota(ranks.begin(), ranks.end(), 0);
  return ranks;
}

// One round: one chunk of one piece of every block. The send of its step k
// has tag firstTag + k; the step after it receives that message.
struct RingPass::Round {
  int piece;
  size_t begin;  // where the chunk starts within the piece
  uint32_t firstTag;
};

RingPass::RingPass(RingMembers ring, RingBlocks blocks, size_t maxStepElements)
    : ring_(std::move(ring)), blocks_(std::move(blocks)) {
  if (ring_.size() < 2)
    throwError(trncclInternalError, "a ring pass needs two members or more, got " + std::to_string(ring_.size()));
  size_t longest = blocks_.split ? blocks_.split->size(0) : 0;  // an even split's first block is a longest
  for (int b = 0; !blocks_.split && b < ring_.size(); ++b) longest = std::max(longest, blocks_.length(b));
  chunk_ = maxStepElements ? std::min(maxStepElements, longest) : longest;
  chunksPerPiece_ = chunk_ ? (longest + chunk_ - 1) / chunk_ : 0;
  sendsTo_ = ring_.sendsTo(), receivesFrom_ = ring_.receivesFrom();
}

int RingPass::stepsPerRound(Kind kind) const { return kind == Kind::AllReduce ? 2 * ring_.size() - 1 : ring_.size(); }

size_t RingPass::steps(const Job& job) const {
  // Every step but a round's last sends, so a round takes stepsPerRound - 1 tags.
  const uint64_t tagsPerRound = static_cast<uint64_t>(stepsPerRound(job.kind) - 1);
  const uint64_t count = chunksPerPiece_ * static_cast<uint64_t>(blocks_.pieces);
  if (count * tagsPerRound > job.tags.size)
    throwError(trncclInvalidUsage, "a ring pass of " + std::to_string(count) + " rounds needs more than the " +
                                       std::to_string(job.tags.size) + " message tags it has; raise the step size");
  return count * static_cast<size_t>(stepsPerRound(job.kind));
}

RingPass::Round RingPass::round(const Job& job, size_t i) const {
  const uint64_t tagsPerRound = static_cast<uint64_t>(stepsPerRound(job.kind) - 1);
  // Most passes move a piece in one chunk: no division then.
  const size_t piece = chunksPerPiece_ == 1 ? i : i / chunksPerPiece_;
  return Round{static_cast<int>(piece), chunk_ * (i - piece * chunksPerPiece_),
               static_cast<uint32_t>(job.tags.first + i * tagsPerRound)};
}

// Reduce-scatter step k adds this rank's part to block position - k - 1 (in
// the ring's direction), so the last step, k = size - 1, completes block `position`.
int RingPass::blockReducedAt(int k) const { return wrap(ring_.position - ring_.direction * (k + 1)); }
int RingPass::blockGatheredAt(int j) const { return wrap(ring_.position - ring_.direction * j); }

// A member's index from -size .. 2 size - 1, without dividing (every step asks).
int RingPass::wrap(int i) const {
  const int n = ring_.size();
  return i < 0 ? i + n : i >= n ? i - n : i;
}

// The chunk of `block` a round moves: where it starts in the piece, and its
// length (the block's length asked once: it may be a call through a table).
struct RingPass::Part {
  int block;
  size_t skip, count;
};

RingPass::Part RingPass::partOf(int block, const Round& round) const {
  const size_t length = blocks_.length(block);
  const size_t skip = std::min(length, round.begin);
  return Part{block, skip, std::min(chunk_, length - skip)};
}

Span RingPass::at(const PieceAt& pieces, const Part& part, const Round& round) const {
  Span span = pieces(part.block, round.piece);
  span.offset += part.skip;
  return span;
}

void RingPass::primitive(const Round& round, int k, bool recv, bool send, Step& out) const {
  out.clear();
  if (recv) out.recvPeer = receivesFrom_, out.recvTag = round.firstTag + k - 1;
  if (send) out.sendPeer = sendsTo_, out.sendTag = round.firstTag + k;
}

// Step k of a round's reduce-scatter.
void RingPass::reduceScatterStep(const Round& round, int k, const Job& job, bool sendResult, Step& out) const {
  const bool last = k == ring_.size() - 1;
  const Part part = partOf(blockReducedAt(k), round);
  primitive(round, k, k > 0, !last || sendResult, out);
  out.reduce = k > 0;
  out.final = last && job.final;
  out.srcs.push_back(at(job.inputs, part, round));
  if (last) out.dst = at(job.outputs, part, round);
  out.count = part.count;
}

// Step firstStep + j - 1 of a round, 0 < j < size: it receives the next block
// into its place and forwards it, but the last.
void RingPass::gatherStep(const Round& round, int j, int firstStep, const PieceAt& outputs, Step& out) const {
  const Part part = partOf(blockGatheredAt(j), round);
  primitive(round, firstStep + j - 1, true, j < ring_.size() - 1, out);
  out.dst = at(outputs, part, round);
  out.count = part.count;
}

void RingPass::step(const Job& job, size_t i, Step& out) const {
  const int n = ring_.size();
  const size_t perRound = static_cast<size_t>(stepsPerRound(job.kind));
  const size_t roundIndex = i < perRound ? 0 : i / perRound;  // most passes are one round: no division then
  const Round r = round(job, roundIndex);
  const int k = static_cast<int>(i - roundIndex * perRound);
  switch (job.kind) {
    case Kind::ReduceScatter:
      return reduceScatterStep(r, k, job, false, out);
    case Kind::AllReduce:
      // Fused per round: the reduced block is sent on by the step that computes it.
      if (k < n) return reduceScatterStep(r, k, job, true, out);
      return gatherStep(r, k - n + 1, n, job.outputs, out);
    case Kind::AllGather: {
      if (k > 0) return gatherStep(r, k, 1, job.outputs, out);
      const Part own = partOf(ring_.position, r);
      primitive(r, 0, false, true, out);
      if (job.inputs) {
        out.srcs.push_back(at(job.inputs, own, r));
        out.dst = at(job.outputs, own, r);
      } else {
        out.srcs.push_back(at(job.outputs, own, r));
      }
      out.count = own.count;
      return;
    }
  }
}

StepRun RingPass::run(const Job& job, size_t i, Step& out) const {
  step(job, i, out);
  const StepRun one{1, out.count, out.count, out.count};
  // One chunk a piece: every step moves its whole block.
  if (!blocks_.split || chunksPerPiece_ != 1) return one;
  const int n = ring_.size();
  const size_t perRound = static_cast<size_t>(stepsPerRound(job.kind));
  const int k = static_cast<int>(i % perRound);
  // Steps first .. last of the round's reduce-scatter (which receive, reduce
  // and send) or its all-gather (which receive and send), blocks from `block`.
  int steps = 0, block = 0;
  if (job.kind != Kind::AllGather && k >= 1 && k < n) {
    const int last = job.kind == Kind::AllReduce ? n - 1 : n - 2;  // all-reduce's sends its result on
    steps = last - k + 1, block = blockReducedAt(k);
  } else if (job.kind != Kind::ReduceScatter) {
    const int j = job.kind == Kind::AllReduce ? k - n + 1 : k;  // the all-gather's step
    if (j >= 1 && j <= n - 2) steps = n - 1 - j, block = blockGatheredAt(j);
  }
  if (steps < 2) return one;
  const EvenSplit& split = *blocks_.split;
  return StepRun{static_cast<size_t>(steps), split.base, split.base + (split.extra > 0 ? 1 : 0),
                 blocksTotal(block, steps)};
}

// The elements of `count` blocks from `first` on, against the ring's
// direction (as its steps take them), of an even split.
size_t RingPass::blocksTotal(int first, int count) const {
  const int n = ring_.size();
  const EvenSplit& split = *blocks_.split;
  // As blocks lo .. lo + count - 1, past the last block on from the first.
  const int lo = ring_.direction > 0 ? wrap(first - (count - 1)) : first;
  if (lo + count <= n) return split.begin(lo + count) - split.begin(lo);
  return split.begin(n) - split.begin(lo) + split.begin(lo + count - n);
}

void RingPass::append(const Job& job, std::vector<Step>& steps) const {
  const size_t count = this->steps(job);
  reserveFor(steps, count);
  for (size_t i = 0; i < count; ++i) step(job, i, steps.emplace_back());
}

void RingPass::reduceScatter(const PieceAt& inputs, const PieceAt& result, bool final, TagRange tags,
                             std::vector<Step>& steps) const {
  append(Job{Kind::ReduceScatter, inputs, result, final, tags}, steps);
}

void RingPass::allGather(const PieceAt& outputs, const PieceAt& ownInput, TagRange tags,
                         std::vector<Step>& steps) const {
  append(Job{Kind::AllGather, ownInput, outputs, true, tags}, steps);
}

void RingPass::allReduce(const PieceAt& inputs, const PieceAt& outputs, TagRange tags, std::vector<Step>& steps) const {
  append(Job{Kind::AllReduce, inputs, outputs, true, tags}, steps);
}

}  // namespace trnccl::algo
