#pragma once

#include <cstdint>

#include "logic/options.h"
#include "rank_sync.h"
#include "reporter.h"
#include "trnccl/trnccl.h"

namespace trnccl::perf {

struct RankSetup {
  int rank;
  int nranks;
  trncclComm_t comm;
  RankSync& sync;
  const Options& options;
  Reporter* reporter;  // rank 0's; null on the other ranks
};

// One rank's whole run: every type, op and size, out-of-place then in-place,
// timed and checked (and timed with MPI in peer mode). Returns the number of
// wrong elements over all ranks, the same on every rank.
uint64_t run_rank(const RankSetup& setup);

}  // namespace trnccl::perf
