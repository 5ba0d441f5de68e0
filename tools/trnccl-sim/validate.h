// --validate perf.json: the simulator's prediction beside what trnccl-perf
// measured with NeuronLink timed emulation on (TRNCCL_EMULATE_LINKS=1), row
// by row, for the topology, rank order and algorithm the run used.
#pragma once

#include <string>

#include "sim/simulation.h"

namespace trnccl::simtool {

// The comparison table, ending with the median absolute error over sizes
// >= 64 KiB. Throws Error(InvalidArgument) naming the file and what is
// missing (a run without emulation cannot be compared).
std::string validate(const std::string& perfJson, sim::Engine engine);

}  // namespace trnccl::simtool
