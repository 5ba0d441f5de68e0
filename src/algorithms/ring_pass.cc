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
  size_t longest = 0;
  for (int b = 0; b < ring_.size(); ++b) longest = std::max(longest, blocks_.length(b));
  chunk_ = maxStepElements ? std::min(maxStepElements, longest) : longest;
  chunksPerPiece_ = chunk_ ? (longest + chunk_ - 1) / chunk_ : 0;
}

std::vector<RingPass::Round> RingPass::rounds(int stepsPerRound, TagRange tags) const {
  // Every step but a round's last sends, so a round takes stepsPerRound - 1 tags.
  const uint64_t tagsPerRound = static_cast<uint64_t>(stepsPerRound - 1);
  const uint64_t count = chunksPerPiece_ * static_cast<uint64_t>(blocks_.pieces);
  if (count * tagsPerRound > tags.size)
    throwError(trncclInvalidUsage, "a ring pass of " + std::to_string(count) + " rounds needs more than the " +
                                       std::to_string(tags.size) + " message tags it has; raise the step size");
  std::vector<Round> all;
  all.reserve(count);
  for (uint64_t i = 0; i < count; ++i)
    all.push_back(Round{static_cast<int>(i / chunksPerPiece_), chunk_ * (i % chunksPerPiece_),
                        static_cast<uint32_t>(tags.first + i * tagsPerRound)});
  return all;
}

// Reduce-scatter step k adds this rank's part to block position - k - 1 (in
// the ring's direction), so the last step, k = size - 1, completes block `position`.
int RingPass::blockReducedAt(int k) const { return mod(ring_.position - ring_.direction * (k + 1), ring_.size()); }
int RingPass::blockGatheredAt(int j) const { return mod(ring_.position - ring_.direction * j, ring_.size()); }

size_t RingPass::partLength(int block, const Round& round) const {
  const size_t length = blocks_.length(block);
  return std::min(chunk_, length - std::min(length, round.begin));
}

Span RingPass::part(const PieceAt& at, int block, const Round& round) const {
  Span span = at(block, round.piece);
  span.offset += std::min(blocks_.length(block), round.begin);
  return span;
}

Step RingPass::primitive(const Round& round, int k, bool recv, bool send) const {
  Step s;
  if (recv) s.recvPeer = ring_.receivesFrom(), s.recvTag = round.firstTag + k - 1;
  if (send) s.sendPeer = ring_.sendsTo(), s.sendTag = round.firstTag + k;
  return s;
}

void RingPass::reduceScatterRound(const Round& round, const PieceAt& inputs, const PieceAt& result, bool final,
                                  bool sendResult, std::vector<Step>& steps) const {
  const int n = ring_.size();
  for (int k = 0; k < n; ++k) {
    const bool last = k == n - 1;
    const int block = blockReducedAt(k);
    Step s = primitive(round, k, k > 0, !last || sendResult);
    s.reduce = k > 0;
    s.final = last && final;
    s.srcs = {part(inputs, block, round)};
    if (last) s.dst = part(result, block, round);
    s.count = partLength(block, round);
    steps.push_back(std::move(s));
  }
}

// Steps firstStep .. firstStep + size - 2 of a round: each receives the next
// block into its place and forwards it, but the last.
void RingPass::gatherRound(const Round& round, int firstStep, const PieceAt& outputs, std::vector<Step>& steps) const {
  const int n = ring_.size();
  for (int j = 1; j < n; ++j) {
    const int block = blockGatheredAt(j);
    Step g = primitive(round, firstStep + j - 1, true, j < n - 1);
    g.dst = part(outputs, block, round);
    g.count = partLength(block, round);
    steps.push_back(std::move(g));
  }
}

void RingPass::reduceScatter(const PieceAt& inputs, const PieceAt& result, bool final, TagRange tags,
                             std::vector<Step>& steps) const {
  const std::vector<Round> all = rounds(ring_.size(), tags);
  reserveFor(steps, all.size() * static_cast<size_t>(ring_.size()));
  for (const Round& round : all) reduceScatterRound(round, inputs, result, final, false, steps);
}

void RingPass::allGather(const PieceAt& outputs, const PieceAt& ownInput, TagRange tags,
                         std::vector<Step>& steps) const {
  const int own = ring_.position;
  const std::vector<Round> all = rounds(ring_.size(), tags);
  reserveFor(steps, all.size() * static_cast<size_t>(ring_.size()));
  for (const Round& round : all) {
    Step first = primitive(round, 0, false, true);
    if (ownInput) {
      first.srcs = {part(ownInput, own, round)};
      first.dst = part(outputs, own, round);
    } else {
      first.srcs = {part(outputs, own, round)};
    }
    first.count = partLength(own, round);
    steps.push_back(std::move(first));
    gatherRound(round, 1, outputs, steps);
  }
}

void RingPass::allReduce(const PieceAt& inputs, const PieceAt& outputs, TagRange tags, std::vector<Step>& steps) const {
  const int n = ring_.size();
  const std::vector<Round> all = rounds(2 * n - 1, tags);
  reserveFor(steps, all.size() * static_cast<size_t>(2 * n - 1));
  for (const Round& round : all) {
    reduceScatterRound(round, inputs, outputs, true, true, steps);
    gatherRound(round, n, outputs, steps);
  }
}

}  // namespace trnccl::algo
