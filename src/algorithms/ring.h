// Ring algorithms (NCCL's): all-reduce as a reduce-scatter then an all-gather
// around the ring, all-gather, reduce-scatter (and their uneven -v forms: each
// rank's block as long as its count), and broadcast / reduce as
// chains along the ring. Bandwidth-optimal; every step talks to ring
// neighbours only, and slices pipeline through each step.
#pragma once

#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/ring_pass.h"

namespace trnccl::algo {

class Ring : public Algorithm {
 public:
  const char* name() const override { return "ring"; }
  std::string whyUnsupported(const CollectiveArgs& args) const override;
  Schedule build(const CollectiveArgs& args) const override;
};

// Appends the steps of a ring all-reduce, all-gather or reduce-scatter over
// ranks 0..nranks-1 in `direction` (+1: each rank sends to rank + 1) that
// moves only the elements [begin, begin + length): of the buffer for
// all-reduce, of every rank's block for all-gather and reduce-scatter.
void appendRingCollective(const CollectiveArgs& args, size_t begin, size_t length, int direction, TagRange tags,
                          std::vector<Step>& steps);

}  // namespace trnccl::algo
