// The event-driven engine: moves every transfer of every rank's schedule over
// the links of its route, in simulated time.
//  - Each rank enters at its entry time (0 unless it straggles), then runs
//    its phases in order; a phase's channels run at once; a channel's steps
//    run one after another.
//  - A step that receives waits for its message (matched by sender, receiver
//    and tag, as the executor matches it), then reduces on the vector engine
//    ((inputs - 1) passes of its bytes, at least one), then posts its send and
//    the channel moves on (sends are asynchronous, as posted sends are).
//  - A rank's messages to one peer go one at a time, in order (a transport's
//    per-peer queue); the next starts when the last byte of one has left.
//  - A message is first issued: its path's issue link (the sender's DMA
//    engines) issues one message after another, each for the path's
//    issueSec, while the bytes of those issued before move.
//  - A transfer occupies every link of its route at once; links are shared
//    fairly: each transfer gets, on every link it crosses, an equal share of
//    that link, and moves at its smallest share; shares are recomputed when a
//    transfer starts or ends on one of its links. Its message arrives the
//    route's latency after its last byte left.
//  - The call costs the network's launchSec once, after the last rank ends.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/schedule.h"
#include "sim/compact_schedules.h"
#include "sim/prediction.h"

namespace trnccl::sim {

// How transfers use the links. Fair shares them as above. Static decides
// each transfer's rate from the schedules alone (StaticRate; by default its
// route's bottleneck) and never recomputes it as other transfers come and
// go, which leaves alpha-beta along the schedules' dependencies (the
// analytical engine).
enum class Sharing { Fair, Static };
// For Sharing::Static: the rate of the message that `rank` sends in step
// `step` of phase `phase` over `path`.
using StaticRate = std::function<double(int rank, size_t phase, size_t step, const algo::Path& path)>;

// `entrySec`: when each rank enters the collective (empty, or missing ranks:
// at 0). Throws Error(InternalError) on a schedule that can never finish (a
// receive nobody sends), naming the rank and step.
Prediction runEvents(const CompactSchedules& allRanks, const algo::Network& net,
                     const std::vector<double>& entrySec = {}, Sharing sharing = Sharing::Fair,
                     const StaticRate* staticRate = nullptr);
// The same, compacting `allRanks` first.
Prediction runEvents(const std::vector<algo::Schedule>& allRanks, const algo::Network& net,
                     const std::vector<double>& entrySec = {}, Sharing sharing = Sharing::Fair,
                     const StaticRate* staticRate = nullptr);

}  // namespace trnccl::sim
