// Direct: the root exchanges with every other rank at once (gather, scatter:
// Open MPI's basic linear algorithm), and permute's one send and one receive.
// On one host every message crosses shared memory once, so nothing relayed
// through a tree or a chain could be faster for large messages; a tree would
// only save latency at small sizes on many ranks.
#pragma once

#include "algorithms/algorithm.h"

namespace trnccl::algo {

class Direct : public Algorithm {
 public:
  const char* name() const override { return "direct"; }
  std::string whyUnsupported(const CollectiveArgs& args) const override;
  Schedule build(const CollectiveArgs& args) const override;
};

}  // namespace trnccl::algo
