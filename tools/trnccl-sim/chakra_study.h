// --chakra FILE: a Chakra execution trace replayed on the --topo machine
// (chakra/chakra_replay.h): the step time, the exposed communication and
// each collective's share.
#pragma once

#include <string>

#include "options.h"

namespace trnccl::simtool {

std::string chakraStudy(const Options& options);

}  // namespace trnccl::simtool
