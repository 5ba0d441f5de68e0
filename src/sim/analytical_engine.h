// The analytical engine: alpha-beta per step along the schedules' own
// dependencies, bounded below by the link loads.
//  - The critical path: every message costs its route's latency plus its
//    bytes at the route's bottleneck bandwidth, and every reduction its
//    vector-engine time; a step starts when its channel and its message are
//    ready. A message's bandwidth is its equal share of each link it crosses
//    among the messages of the same step index, decided from the schedules,
//    not from time (the event engine with Sharing::Static).
//  - The link loads: every byte a link carries crosses it at the link's
//    rate, whenever it goes, so the busiest link's bytes over its bandwidth
//    bound the call below. (Adding up the busiest link of each step index
//    instead took steps of one index as simultaneous; channels and phases
//    drift apart, and on trn1.32xlarge's torus that overstated a 64 MiB
//    torus2d all-reduce by 18% against the event engine.)
// The prediction is the larger of the two, so it never undercuts either the
// latency chain or the busiest link. It differs from the event engine where
// contention stretches the chain itself (a late message delays what follows).
// A rank that enters late (entrySec) delays the chain from its first step; the
// link loads take every rank as present. The bytes per link are the
// schedules' own, as the event engine counts them.
#pragma once

#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/schedule.h"
#include "sim/event_engine.h"

namespace trnccl::sim {

Prediction runAnalytical(const CompactSchedules& allRanks, const algo::Network& net,
                         const std::vector<double>& entrySec = {});
// The same, compacting `allRanks` first.
Prediction runAnalytical(const std::vector<algo::Schedule>& allRanks, const algo::Network& net,
                         const std::vector<double>& entrySec = {});

}  // namespace trnccl::sim
