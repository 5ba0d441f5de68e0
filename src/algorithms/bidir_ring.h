// Bidirectional ring: two rings in opposite directions, as two concurrent
// channels of one phase, each carrying half the data, so both links of every
// rank send at once. All-reduce, all-gather and reduce-scatter; broadcast and
// reduce are left to ring's chains.
#pragma once

#include "algorithms/algorithm.h"

namespace trnccl::algo {

class BidirRing : public Algorithm {
 public:
  const char* name() const override { return "bidir_ring"; }
  std::string whyUnsupported(const CollectiveArgs& args) const override;
  Schedule build(const CollectiveArgs& args) const override;
  std::unique_ptr<StepSource> steps(const CollectiveArgs& args) const override;
};

}  // namespace trnccl::algo
