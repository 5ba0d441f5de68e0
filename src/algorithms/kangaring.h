// KangaRing, AWS Neuron's intra-instance ring ("Intra-node collective
// communications with AWS Neuron"): the ring runs over the chips, not over
// all ranks. A chip's first NeuronCore (its primary rank) stands for the
// chip: its other cores (secondaries) hand their data to it first and get
// the result from it last, so only primaries send between chips. The
// primaries run a ring along two edge-disjoint Hamiltonian cycles of the chip
// torus, each in both directions: four channels, each with a quarter of the
// data, and every NeuronLink direction carries exactly one of them.
//
// All-reduce: (0) each primary reduces its own data, then its secondaries' in
// order (it receives all but the last secondary's into scratch first, and
// reduces as the last one's arrives); (1) the primaries all-reduce that over
// the chip cycles (ring reduce-scatter then all-gather); (2) each primary
// sends the result to its secondaries. All-gather and reduce-scatter do the
// same with a chip's blocks moving around the chip ring as one block. Every
// element is reduced at one rank in a fixed order and copied from there, so
// all ranks get the same bits.
//
// The chips come from args.layout's grid: columns x with the same
// x / ranksPerChip are one chip, and the chips form a torus. A bounded
// depth-first search looks for two edge-disjoint Hamiltonian cycles of it
// where every chip has four neighbours (the 4x4 torus of trn1), for one
// where chips have fewer (a side of 2); a line of chips is one ring. Where
// the search gives up: one cycle in row-major snake order, whose hops need
// not all be links. Without a layout grid every rank is its own chip and the
// ring is ranks 0..n-1, in both directions (two channels).
#pragma once

#include "algorithms/algorithm.h"

namespace trnccl::algo {

class KangaRing : public Algorithm {
 public:
  static constexpr const char* kName = "kangaring";  // its schedule builder names it too
  const char* name() const override { return kName; }
  std::string whyUnsupported(const CollectiveArgs& args) const override;
  Schedule build(const CollectiveArgs& args) const override;
};

}  // namespace trnccl::algo
