// An algorithm compiles one collective call into the schedule of one rank.
// Each algorithm is one small class; it never touches a transport.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "algorithms/layout.h"
#include "algorithms/schedule.h"

namespace trnccl::algo {

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
};

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual const char* name() const = 0;
  // Empty when the algorithm can run this call; otherwise why not.
  virtual std::string whyUnsupported(const CollectiveArgs& args) const = 0;
  virtual Schedule build(const CollectiveArgs& args) const = 0;
};

// Element range [begin, end) of block `i` when `count` elements are split into
// `n` nearly equal blocks (sizes differ by at most one).
inline size_t blockBegin(size_t count, int n, int i) { return count / n * i + std::min<size_t>(i, count % n); }
inline size_t blockSize(size_t count, int n, int i) { return count / n + (static_cast<size_t>(i) < count % n ? 1 : 0); }
inline int mod(int a, int n) { return ((a % n) + n) % n; }

// A schedule with its header filled from args and one phase of one channel.
Schedule singleChannelSchedule(const CollectiveArgs& args, const char* algorithm);
// The one-rank case, shared by every algorithm: the result is the input.
Schedule localCopySchedule(const CollectiveArgs& args, const char* algorithm);

}  // namespace trnccl::algo
