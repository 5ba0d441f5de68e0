// An algorithm compiles one collective call into the schedule of one rank.
// Each algorithm is one small class; it never touches a transport.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/layout.h"
#include "algorithms/schedule.h"
#include "algorithms/step_source.h"

namespace trnccl::algo {

// The per-rank blocks of the variable-size collectives, in elements: block q
// of the send (receive) buffer is sendCounts[q] elements at sendDispls[q]
// (recvCounts[q] at recvDispls[q]). all-gather-v fills the receive side
// (the same on every rank), reduce-scatter-v the send side (the same on every
// rank), all-to-all-v both (this rank's own).
struct VarCounts {
  std::vector<size_t> sendCounts, sendDispls, recvCounts, recvDispls;
  auto operator<=>(const VarCounts&) const = default;
};

struct CollectiveArgs {
  Collective collective = Collective::AllReduce;
  int rank = 0;
  int nranks = 1;
  size_t count = 0;  // the API's count (per-rank block for allgather/reducescatter/alltoall)
  trncclDataType_t type = trncclFloat32;
  trncclRedOp_t op = trncclSum;
  int root = 0;
  bool inPlace = false;
  // The most elements one step may carry (0: no limit). The executor keeps two
  // steps of a channel in flight and bounds each step's slices in flight, so
  // pipelines whose messages cross a step boundary (ring) must bound their
  // steps by this to stay deadlock-free with bounded buffers.
  size_t maxStepElements = 0;
  // Where the ranks sit (nullptr: nothing known, a flat group of ranks).
  const RankLayout* layout = nullptr;
  // Permute: the rank this one sends to and the one it receives from (-1: none).
  int sendPeer = -1;
  int recvPeer = -1;
  // The v-collectives' blocks (null for the others): shared, so copying the
  // args of a fixed-size call stays cheap and queued calls own their counts.
  std::shared_ptr<const VarCounts> v = nullptr;
};

// A call described once for every rank (the tuner's candidates, the
// simulator's calls) has even blocks and permutes by a shift:
// the v-collectives' blocks when every rank's is `count` elements, packed in
// rank order;
std::shared_ptr<const VarCounts> evenBlocks(Collective c, size_t count, int nranks);
// and rank r's args of such a call: its rank, and permute's peers as a shift
// by one (send to r + 1, receive from r - 1).
CollectiveArgs argsOfRank(CollectiveArgs args, int r);

// The collectives that combine ranks' data with an op.
bool reduces(Collective c);
// The v-collectives, whose blocks are in args.v.
bool isVariable(Collective c);
// The elements of the call every rank agrees on (what the tuner buckets and
// TRNCCL_CHECK compares): the count for the fixed-size collectives, the sum
// of the blocks for all-gather-v and reduce-scatter-v, 0 for all-to-all-v and
// permute, whose counts are each rank's own.
size_t agreedCount(const CollectiveArgs& args);

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual const char* name() const = 0;
  // Empty when the algorithm can run this call; otherwise why not.
  virtual std::string whyUnsupported(const CollectiveArgs& args) const = 0;
  virtual Schedule build(const CollectiveArgs& args) const = 0;
  // The same schedule step by step (step_source.h): by default build()'s,
  // read from memory; an algorithm that generates its steps lazily
  // overrides it and materialises build() from it.
  virtual std::unique_ptr<StepSource> steps(const CollectiveArgs& args) const;
};

// Element range [begin, end) of block `i` when `count` elements are split into
// `n` nearly equal blocks (sizes differ by at most one).
// EvenSplit divides once, for code that asks for block after block.
struct EvenSplit {
  EvenSplit(size_t count, int n) : base(count / n), extra(count % n) {}
  size_t begin(int i) const { return base * i + std::min<size_t>(i, extra); }
  size_t size(int i) const { return base + (static_cast<size_t>(i) < extra ? 1 : 0); }
  size_t base, extra;
};
inline size_t blockBegin(size_t count, int n, int i) { return EvenSplit(count, n).begin(i); }
inline size_t blockSize(size_t count, int n, int i) { return EvenSplit(count, n).size(i); }
inline int mod(int a, int n) { return ((a % n) + n) % n; }

// A step that copies `count` elements from `from` to `to` on this rank.
Step localCopy(Span from, Span to, size_t count);

// A schedule with its header filled from args and one phase of one channel.
Schedule singleChannelSchedule(const CollectiveArgs& args, const char* algorithm);
// The one-rank case, shared by every algorithm: the result is the input.
Schedule localCopySchedule(const CollectiveArgs& args, const char* algorithm);

}  // namespace trnccl::algo
