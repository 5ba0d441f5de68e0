// Mesh: every rank exchanges directly with every other rank in one step.
// All-to-all (and all-to-all-v, each block as long as its count) always works this way; all-reduce, all-gather and
// reduce-scatter use it for small messages, where one round of latency beats the ring's 2(n-1). Each rank then reduces
// all n contributions in rank order in one kernel call, so every rank computes the same bits.
#pragma once

#include "algorithms/algorithm.h"

namespace trnccl::algo {

class Mesh : public Algorithm {
 public:
  static constexpr const char* kName = "mesh";  // the runtime's one-shot all-reduce looks for it
  const char* name() const override { return kName; }
  std::string whyUnsupported(const CollectiveArgs& args) const override;
  Schedule build(const CollectiveArgs& args) const override;
};

}  // namespace trnccl::algo
