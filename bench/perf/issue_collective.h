#pragma once

#include "nccl_tests/collective.h"
#include "trnccl/trnccl.h"

namespace trnccl::perf {

// Everything one rank needs to issue the benchmarked call.
struct CallSpec {
  Collective collective;
  Layout layout;
  trncclDataType_t type;
  trncclRedOp_t op;  // ignored by collectives that do not reduce
  int root;
  int rank;
  int nranks;
  trncclComm_t comm;
  trncclStream_t stream;
};

// Issues the collective once through the public API (for sendrecv: a send to
// rank+1 and a receive from rank-1 in one group, as nccl-tests' sendrecv_perf
// does; permute the same shift in one call; the v-collectives with even
// blocks). Throws TrncclError on failure.
void issue_collective(const CallSpec& call, const void* send, void* recv);

}  // namespace trnccl::perf
