// The worker's soak mode: all-reduces in a loop, each result checked exactly,
// until rank 0 has run for `seconds` (it tells the others through the
// all-reduce itself, so every rank stops after the same call). For the tests
// that break the network under a running job (test_netem.cc) or stop a rank
// (test_top.cc).
#pragma once

#include <string>

#include "trnccl/trnccl.h"

namespace trnccl::test {

// Exit status: 0 every result right; 1 a wrong result; 4 a call failed with
// an error message within twice `timeoutMs` of its start (printed, "ERROR
// rank R after K all-reduces, the call's N ms, abort's M ms: ..."), after
// which the communicator is aborted; 5 the same, but later than that. Writes the file `readyDir`/rank, holding
// its pid, once the first all-reduce is done (readyDir empty: none).
int runSoakMode(trncclComm_t comm, int rank, int nranks, double seconds, int timeoutMs, const std::string& readyDir);

}  // namespace trnccl::test
