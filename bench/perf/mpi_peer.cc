#include "mpi_peer.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <vector>

namespace trnccl::perf {

namespace {

std::optional<MPI_Datatype> mpi_type(trncclDataType_t type) {
  switch (type) {
    case trncclInt8:
      return MPI_INT8_T;
    case trncclUint8:
      return MPI_UINT8_T;
    case trncclInt32:
      return MPI_INT32_T;
    case trncclUint32:
      return MPI_UINT32_T;
    case trncclInt64:
      return MPI_INT64_T;
    case trncclUint64:
      return MPI_UINT64_T;
    case trncclFloat32:
      return MPI_FLOAT;
    case trncclFloat64:
      return MPI_DOUBLE;
    default:
      return std::nullopt;
  }
}

MPI_Op mpi_op(trncclRedOp_t op) {
  switch (op) {
    case trncclProd:
      return MPI_PROD;
    case trncclMax:
      return MPI_MAX;
    case trncclMin:
      return MPI_MIN;
    default:
      return MPI_SUM;  // MPI has no average; the traffic of a sum is the same
  }
}

// MPI's v-collectives' arguments for even blocks of `count` elements.
struct MpiEvenBlocks {
  std::vector<int> counts, displs;
  MpiEvenBlocks(int count, int nranks) : counts(nranks, count), displs(nranks) {
    for (int q = 0; q < nranks; ++q) displs[q] = count * q;
  }
};

void call_mpi(const CallSpec& c, MPI_Datatype type, const void* send, void* recv) {
  const int count = static_cast<int>(c.layout.count);
  switch (c.collective) {
    case Collective::AllReduce:
      MPI_Allreduce(send, recv, count, type, mpi_op(c.op), MPI_COMM_WORLD);
      return;
    case Collective::AllGather:
      MPI_Allgather(send, count, type, recv, count, type, MPI_COMM_WORLD);
      return;
    case Collective::ReduceScatter:
      MPI_Reduce_scatter_block(send, recv, count, type, mpi_op(c.op), MPI_COMM_WORLD);
      return;
    case Collective::Broadcast:
      MPI_Bcast(recv, count, type, c.root, MPI_COMM_WORLD);
      return;
    case Collective::Reduce:
      MPI_Reduce(send, recv, count, type, mpi_op(c.op), c.root, MPI_COMM_WORLD);
      return;
    case Collective::AllToAll:
      MPI_Alltoall(send, count, type, recv, count, type, MPI_COMM_WORLD);
      return;
    case Collective::SendRecv:
    case Collective::Permute:
      MPI_Sendrecv(send, count, type, (c.rank + 1) % c.nranks, 0, recv, count, type, (c.rank + c.nranks - 1) % c.nranks,
                   0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      return;
    case Collective::Gather:
      MPI_Gather(send, count, type, recv, count, type, c.root, MPI_COMM_WORLD);
      return;
    case Collective::Scatter:
      MPI_Scatter(send, count, type, recv, count, type, c.root, MPI_COMM_WORLD);
      return;
    case Collective::AllToAllV: {
      const MpiEvenBlocks even(count, c.nranks);
      MPI_Alltoallv(send, even.counts.data(), even.displs.data(), type, recv, even.counts.data(), even.displs.data(),
                    type, MPI_COMM_WORLD);
      return;
    }
    case Collective::AllGatherV: {
      const MpiEvenBlocks even(count, c.nranks);
      MPI_Allgatherv(send, count, type, recv, even.counts.data(), even.displs.data(), type, MPI_COMM_WORLD);
      return;
    }
    case Collective::ReduceScatterV: {
      const MpiEvenBlocks even(count, c.nranks);
      MPI_Reduce_scatter(send, recv, even.counts.data(), type, mpi_op(c.op), MPI_COMM_WORLD);
      return;
    }
  }
}

}  // namespace

std::optional<double> mpi_peer_seconds(const CallSpec& call, const void* send, void* recv, int warmup, int iters,
                                       bool perCallMedian) {
  const std::optional<MPI_Datatype> type = mpi_type(call.type);
  if (!type || call.layout.send_count > static_cast<size_t>(INT_MAX)) return std::nullopt;
  for (int i = 0; i < warmup; ++i) call_mpi(call, *type, send, recv);
  MPI_Barrier(MPI_COMM_WORLD);
  double seconds = 0;
  if (perCallMedian) {
    std::vector<double> each(static_cast<size_t>(iters));
    for (double& s : each) {
      const auto start = std::chrono::steady_clock::now();
      call_mpi(call, *type, send, recv);
      s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    const auto middle = each.begin() + static_cast<std::ptrdiff_t>(each.size() / 2);
    std::nth_element(each.begin(), middle, each.end());
    seconds = *middle;
  } else {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) call_mpi(call, *type, send, recv);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iters;
  }
  double slowest = 0;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

}  // namespace trnccl::perf
