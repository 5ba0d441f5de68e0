// The event-driven engine: moves every transfer of every rank's schedule over
// the links of its route, in simulated time.
//  - Each rank runs its phases in order; a phase's channels run at once; a
//    channel's steps run one after another.
//  - A step that receives waits for its message (matched by sender, receiver
//    and tag, as the executor matches it), then reduces on the vector engine
//    ((inputs - 1) passes of its bytes, at least one), then posts its send and
//    the channel moves on (sends are asynchronous, as posted sends are).
//  - A transfer occupies every link of its route at once; links are shared
//    fairly: each transfer gets, on every link it crosses, an equal share of
//    that link, and moves at its smallest share; shares are recomputed when a
//    transfer starts or ends on one of its links. Its message arrives the
//    route's latency after its last byte left.
#pragma once

#include <string>
#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/schedule.h"

namespace trnccl::sim {

struct EventOutcome {
  double seconds = 0;  // when the last rank finished
  // What bounded the run: "link NAME" when the busiest link was busy for at
  // least half the time, else "vector engine" when some rank reduced for at
  // least half of it, else "latency".
  std::string bound;
  size_t transfers = 0;
  std::vector<double> linkBytes;  // bytes that crossed each link
};

// Throws Error(InternalError) on a schedule that can never finish (a receive
// nobody sends), naming the rank and step.
EventOutcome runEvents(const std::vector<algo::Schedule>& allRanks, const algo::Network& net);

}  // namespace trnccl::sim
