// A cheap lower bound on the cost model's price of a candidate, from the
// schedules of three ranks instead of every rank's: the tuner prices only
// the candidates it cannot rule out with it.
#pragma once

#include "algorithms/algorithm.h"
#include "algorithms/cost_model.h"

namespace trnccl::algo {

// Never above predict() of every rank's schedule of `args` on `net`, nor above
// the same model on a network that merges links (folding). The larger of:
//  - the cost model over ranks 0, n - 1 and the root alone: every other rank
//    only lengthens a phase's longest chain or loads its links more;
//  - the busiest link over the whole call, from the messages those ranks
//    receive and send (each once), plus the launch: the model's sum over
//    phases of each phase's busiest link is at least any link's total.
// `ranks` First: the same from rank 0's steps alone, a weaker bound at a
// fraction of the cost, which rules out the clearly slower candidates first.
enum class BoundRanks { First, Bounding };
double lowerBound(const Algorithm& algorithm, const CollectiveArgs& args, const Network& net,
                  BoundRanks ranks = BoundRanks::Bounding);

}  // namespace trnccl::algo
