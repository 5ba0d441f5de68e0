// A Chakra trace replayed on a simulated machine: compute nodes take their
// recorded duration; collective nodes take the time trnccl-sim predicts for
// them on the machine with the chosen algorithm; a node starts once its
// dependencies have ended and its resource (the compute engine, or the
// collective stream: one collective at a time, as on one communicator) is
// free. Other nodes take no time.
#pragma once

#include <string>
#include <vector>

#include "chakra_trace.h"
#include "sim/machine.h"
#include "sim/simulation.h"

namespace trnccl::simtool::chakra {

struct CollectiveUse {
  std::string collective;  // "allreduce"
  size_t bytes = 0;
  int calls = 0;
  double secondsEach = 0;
  std::string algorithm;
};

struct Replay {
  double stepSec = 0;     // when the last node ends
  double computeSec = 0;  // the compute nodes' durations
  double commSec = 0;     // the collectives' durations
  double exposedSec = 0;  // stepSec - computeSec: communication nothing hid
  size_t computeNodes = 0, collectiveNodes = 0;
  std::vector<CollectiveUse> collectives;  // per collective and size, in first-use order
};

// `call` gives the type, algorithm and engine of every collective. Throws
// Error(InvalidArgument) naming the node on a collective trnccl cannot
// simulate, a missing comm_type or comm_size, a dependency on no node, or a
// cycle.
Replay replay(const Trace& trace, const sim::Machine& machine, const sim::Call& call);

std::string formatReplay(const Replay& r, const std::string& file, const sim::Machine& machine);

}  // namespace trnccl::simtool::chakra
