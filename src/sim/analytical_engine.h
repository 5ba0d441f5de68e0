// The analytical engine: alpha-beta per step along the schedules' own
// dependencies, bounded below by the link loads.
//  - The critical path: every message costs its route's latency plus its
//    bytes at the route's bottleneck bandwidth, and every reduction its
//    vector-engine time; a step starts when its channel and its message are
//    ready. A message's bandwidth is its equal share of each link it crosses
//    among the messages of the same step index, decided from the schedules,
//    not from time (the event engine with Sharing::Static).
//  - The link loads: the steps of one index (of a phase, over all channels
//    and ranks) run together, so each index costs its most loaded link's
//    bytes over that link's bandwidth; indices add up.
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

Outcome runAnalytical(const std::vector<algo::Schedule>& allRanks, const algo::Network& net,
                      const std::vector<double>& entrySec = {});

}  // namespace trnccl::sim
