#pragma once

#include <optional>

#include "issue_collective.h"

namespace trnccl::perf {

// Times the linked MPI's equivalent of the call (Open MPI's in trnccl-perf,
// MPICH's in trnccl-perf-mpich: MPI_Allreduce, MPI_Allgather,
// MPI_Reduce_scatter_block, MPI_Bcast, MPI_Reduce, MPI_Alltoall, MPI_Sendrecv)
// on the same buffers: `iters` calls after `warmup` untimed ones, with the
// statistic trnccl's own time uses in the same run, so the ratio compares like
// with like: a batch's mean per call (nccl-tests), or with `perCallMedian`
// each call timed alone and the median taken (nccom-test). (A median against a
// mean favours whichever side it is given to on a loaded host: it drops the
// calls a descheduled rank delays.) Returns the slowest rank's seconds per
// call, or none (on every rank) when MPI has no such type (half, bfloat16,
// fp8) or the count does not fit MPI's int. Every rank must call it.
std::optional<double> mpi_peer_seconds(const CallSpec& call, const void* send, void* recv, int warmup, int iters,
                                       bool perCallMedian);

}  // namespace trnccl::perf
