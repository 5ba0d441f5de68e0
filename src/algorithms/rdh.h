// Rabenseifner's recursive halving-doubling (Neuron calls it RDH). With p a
// power of two, reduce-scatter is recursive halving: at level k every rank
// sends the half of its remaining range that its partner at distance p/2^(k+1)
// keeps, and reduces the half it keeps with what the partner sends; all-gather
// is recursive doubling at distances 1, 2, ..., p/2. All-reduce is the one then
// the other: 2 log2(p) steps of latency and 2 (p-1)/p of the data on the wire,
// so it beats the ring's 2(p-1) steps for small and medium messages. Partners at
// distance 2^k are not topology neighbours: the traffic is routed.
//
// Rank counts n that are not a power of two (p the largest power of two <= n,
// r = n - p) use the standard Rabenseifner/MPICH scheme: for i < r, rank 2i
// hands its data to rank 2i+1 and sits out, the p survivors run RDH, and the
// result goes back to the ranks that sat out.
#pragma once

#include "algorithms/algorithm.h"

namespace trnccl::algo {

class Rdh : public Algorithm {
 public:
  const char* name() const override { return "rdh"; }
  std::string whyUnsupported(const CollectiveArgs& args) const override;
  Schedule build(const CollectiveArgs& args) const override;
};

}  // namespace trnccl::algo
