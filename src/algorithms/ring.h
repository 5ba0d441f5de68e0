// Ring algorithms (NCCL's): all-reduce as a reduce-scatter then an all-gather
// around the ring, all-gather, reduce-scatter, and broadcast / reduce as
// chains along the ring. Bandwidth-optimal; every step talks to ring
// neighbours only, and slices pipeline through each step.
#pragma once

#include "algorithms/algorithm.h"

namespace trnccl::algo {

class Ring : public Algorithm {
 public:
  const char* name() const override { return "ring"; }
  std::string whyUnsupported(const CollectiveArgs& args) const override;
  Schedule build(const CollectiveArgs& args) const override;
};

}  // namespace trnccl::algo
