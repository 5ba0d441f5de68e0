// `trnccl-trace analyze`: from the flight-recorder dumps of a job's ranks,
// one line naming why it hangs: ranks that called different collectives at
// the same sequence number, ranks that never entered the collective the
// others wait in, or which rank waits for which peer at which step.
#pragma once

#include <string>
#include <vector>

#include "dumps.h"

namespace trnccl::trace {

struct Diagnosis {
  bool problem = false;  // false: every recorded operation completed
  std::string line;
};

// Dumps of several communicators are told apart by their id; the first
// communicator with a problem is named.
Diagnosis analyze(const std::vector<RankDump>& dumps);

}  // namespace trnccl::trace
