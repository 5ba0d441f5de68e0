// 2D torus all-reduce, all-gather and reduce-scatter on an X x Y grid of
// ranks (Mikami et al. 2018, Ying et al. 2018): a ring reduce-scatter along
// the rows, then along the columns, then ring all-gathers back. Half the data
// goes rows-then-columns while the other half goes columns-then-rows, and each
// half is split again over two rings running in opposite directions, so the
// four channels of each phase keep all four links of every rank busy.
//
// The grid is the layout's when it has one, otherwise the most square
// factoring of the rank count (a prime count makes one ring). Every element is
// reduced at exactly one rank and copied from there, so all ranks get the same
// bits; steps only ever talk to a neighbour in the rank's row or column.
#pragma once

#include "algorithms/algorithm.h"

namespace trnccl::algo {

class Torus2d : public Algorithm {
 public:
  const char* name() const override { return "torus2d"; }
  std::string whyUnsupported(const CollectiveArgs& args) const override;
  Schedule build(const CollectiveArgs& args) const override;
};

}  // namespace trnccl::algo
