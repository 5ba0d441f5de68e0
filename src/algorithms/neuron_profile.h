// The algorithm AWS Neuron's runtime plays for a collective (TRNCCL_ALGO and
// trnccl-sim --algo "neuron"), by the size ranges its documentation gives
// ("Intra-node collective communications with AWS Neuron"): within an
// instance Mesh below about 1 MB, RDH from 1 to 56 MB, KangaRing above;
// across instances hierarchical (reduce-scatter inside each instance, the
// instances' all-reduce, all-gather inside), its middle step again by size.
// So the twin plays what the real machine would, whatever trnccl's own tuner
// prefers.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/algorithm.h"

namespace trnccl::algo {

// Neuron's size range of a call (0: mesh, 1: RDH, 2: KangaRing), by the
// collective's whole buffer (all-gather's output, reduce-scatter's input);
// -1 when Neuron has no rule for the collective (the cost model decides then).
int neuronRange(const CollectiveArgs& args);

// Among `candidates` (allowed, and able to run the call), Neuron's pick for
// size range `range` on `instances` instances; nullptr when none of them is.
const Algorithm* neuronChoice(const std::vector<const Algorithm*>& candidates, int range, int instances);

}  // namespace trnccl::algo
