// A ring pipeline over an ordered list of ranks: the building block of the
// ring, bidirectional-ring, 2D-torus and hierarchical algorithms.
//
// A pass moves one block per member: block b belongs to member b, the rank
// that ends with it reduced (reduce-scatter) or that contributes it
// (all-gather). A block is `pieces` pieces of equal length, which need not be
// adjacent in the buffer (the torus moves a whole row's blocks at once).
// Like NCCL's ring, a pass loops over the data in rounds: a round moves one
// chunk of at most maxStepElements of one piece of every block through the
// ring, so every step carries at most maxStepElements and a message sent in
// one step is received by the next member in its next step.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/schedule.h"

namespace trnccl::algo {

struct RingMembers {
  std::vector<int> ranks;  // comm ranks in ring order
  int position = 0;        // this rank is ranks[position]
  int direction = 1;       // +1: send to the next member, receive from the previous; -1: the reverse

  int size() const { return static_cast<int>(ranks.size()); }
  int sendsTo() const;
  int receivesFrom() const;
};

// The comm ranks 0..n-1 in order: the ring of a whole communicator.
std::vector<int> allRanks(int n);

struct RingBlocks {
  RingBlocks(int pieces, std::function<size_t(int block)> length, std::optional<EvenSplit> split = std::nullopt)
      : pieces(pieces), length(std::move(length)), split(split) {}

  int pieces = 1;
  std::function<size_t(int block)> length;  // elements in each piece of the block
  // Set when block b is split->size(b) elements: sums of blocks then take
  // no loop (RingPass::run).
  std::optional<EvenSplit> split;

  // Blocks of `split`, one piece each.
  static RingBlocks even(EvenSplit split);
};

// Where piece `piece` of block `block` starts.
using PieceAt = std::function<Span(int block, int piece)>;

// The message tags one pass may use. The passes of a collective take
// disjoint slots, so passes between the same two ranks (the two directions of
// a two-member ring, a row and a column that share a neighbour) never collide.
// Tags are below kTagSpace (schedule.h). Algorithms take slots from 0 up, so a schedule that embeds another one can
// move the embedded tags past its own slots.
struct TagRange {
  static constexpr uint32_t kSlotSize = kTagSpace / 32;

  uint32_t first = 0;
  uint32_t size = kSlotSize;

  static TagRange slot(int i) { return TagRange{static_cast<uint32_t>(i) * kSlotSize, kSlotSize}; }
};

class RingPass {
 public:
  // Throws Error(InternalError) for a ring of fewer than two members.
  RingPass(RingMembers ring, RingBlocks blocks, size_t maxStepElements);

  // One pass's work, as the appending calls below take it: `inputs` are
  // reduce-scatter's and all-reduce's inputs and all-gather's ownInput,
  // `outputs` reduce-scatter's result and the others' outputs.
  enum class Kind { ReduceScatter, AllGather, AllReduce };
  struct Job {
    Kind kind = Kind::AllReduce;
    PieceAt inputs, outputs;
    bool final = true;
    TagRange tags;
  };
  // The pass step by step: job's steps number steps(job) (which throws
  // Error(InvalidUsage) when they need more tags than job.tags holds), and
  // step(job, i, out) writes step i, computed from i alone.
  size_t steps(const Job& job) const;
  void step(const Job& job, size_t i, Step& out) const;
  // Step i into `out`, and the steps from i that price alike with it
  // (StepRun): a round's receiving reduce-scatter steps, or its forwarding
  // all-gather ones, when the blocks are an even split moved in one chunk.
  StepRun run(const Job& job, size_t i, Step& out) const;
  // Every step of job, appended.
  void append(const Job& job, std::vector<Step>& steps) const;

  // Reduce-scatter: this rank's contribution to block b is at inputs(b, piece);
  // its own block, reduced over all members, goes to result(own block, piece).
  // `final`: this is the last reduction of these elements (avg divides).
  void reduceScatter(const PieceAt& inputs, const PieceAt& result, bool final, TagRange tags,
                     std::vector<Step>& steps) const;
  // All-gather: every member ends with block b at outputs(b, piece). This
  // rank's own block is read from ownInput, or, when ownInput is empty, is
  // already at outputs.
  void allGather(const PieceAt& outputs, const PieceAt& ownInput, TagRange tags, std::vector<Step>& steps) const;
  // All-reduce: reduce-scatter then all-gather, fused per round (the reduced
  // block is sent on by the step that computes it) as NCCL's ring does.
  void allReduce(const PieceAt& inputs, const PieceAt& outputs, TagRange tags, std::vector<Step>& steps) const;

 private:
  struct Round;
  int stepsPerRound(Kind kind) const;
  Round round(const Job& job, size_t i) const;
  int blockReducedAt(int k) const;   // the block reduce-scatter step k works on
  int blockGatheredAt(int j) const;  // the block all-gather step j receives
  int wrap(int i) const;
  size_t blocksTotal(int first, int count) const;
  struct Part;
  Part partOf(int block, const Round& round) const;
  Span at(const PieceAt& pieces, const Part& part, const Round& round) const;
  void primitive(const Round& round, int k, bool recv, bool send, Step& out) const;
  void reduceScatterStep(const Round& round, int k, const Job& job, bool sendResult, Step& out) const;
  void gatherStep(const Round& round, int j, int firstStep, const PieceAt& outputs, Step& out) const;

  RingMembers ring_;
  RingBlocks blocks_;
  size_t chunk_ = 0;           // elements of each piece one round moves
  size_t chunksPerPiece_ = 0;  // rounds per piece
  int sendsTo_ = -1, receivesFrom_ = -1;
};

}  // namespace trnccl::algo
