// One prediction: a collective call on a machine, with an algorithm (or the
// tuner's choice, "auto"), by one of three engines over the same schedules:
//  - analytical: alpha-beta along the schedules' dependencies, bounded by
//    the link loads (analytical_engine.h), with no contention to track;
//  - event-driven: every transfer moves over its links (event_engine.h),
//    congestion-aware, costlier;
//  - folded: for jobs of many alike instances, the tuner's cost model over
//    the first instance's schedules, standing for all (folding.h).
#pragma once

#include <string>

#include "algorithms/schedule.h"
#include "sim/folding.h"
#include "sim/machine.h"
#include "sim/prediction.h"
#include "sim/stragglers.h"

namespace trnccl::sim {

struct Call {
  algo::Collective collective = algo::Collective::AllReduce;
  size_t count = 0;  // the API's count argument
  trncclDataType_t type = trncclFloat32;
  trncclRedOp_t op = trncclSum;
  std::string algorithm = "auto";  // a name of Tuner::algorithmNames(), or "auto"
  Engine engine = Engine::Auto;
  std::vector<Straggler> stragglers;  // ranks that enter late
};

// Auto picks the event-driven engine while the schedules of all ranks hold at
// most this many steps.
inline constexpr size_t kEventEngineMaxSteps = size_t{4} << 20;

// The analytical and event engines build every rank's schedule (and the
// tuner every candidate's): beyond this many ranks a mesh candidate alone
// would need gigabytes.
inline constexpr int kMaxRanks = 4096;

// Auto folds a job of alike instances with more ranks than this.
inline constexpr int kFoldAboveRanks = 1024;

// Throws Error(InvalidArgument) when the engine cannot take the machine
// (more than kMaxRanks ranks unfolded; folding instances that differ, or
// with stragglers), or the algorithm is unknown or cannot run the call on
// this machine, or a straggler's rank is not on it (naming why). `pricing`
// (may be null): the folded prices of `machine` kept between calls, so
// that a sweep prices each algorithm and size once (FoldedPricing).
Prediction simulate(const Machine& machine, const Call& call, FoldedPricing* pricing = nullptr);

// The tuner's cost model over every rank's schedule (folded above
// kFoldAboveRanks ranks where the instances are alike), whose prediction
// carries the split of its time into launch, latency, bandwidth and
// reduction (algo::TimeParts) that the event engines do not give. The
// engine named is Analytical (or Folded). simulate()'s errors.
Prediction explain(const Machine& machine, const Call& call);

}  // namespace trnccl::sim
