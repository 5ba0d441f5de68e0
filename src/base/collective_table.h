// The one table of the collectives: the enum the library, the benchmarks,
// the tests and the tools share, and each collective's names: the library's
// ("allreduce": trncclCommGetAlgorithm, traces, TRNCCL_CHECK messages) and
// nccl-tests' ("all_reduce": trnccl-perf's command line and reports).
// Header-only, so tools that link only the public library read it too.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace trnccl {

enum class Collective : uint8_t {
  AllReduce,
  AllGather,
  ReduceScatter,
  Broadcast,
  Reduce,
  AllToAll,
  SendRecv,
  Gather,
  Scatter,
  AllToAllV,
  AllGatherV,
  ReduceScatterV,
  Permute,
};

struct CollectiveFacts {
  Collective collective;
  const char* name;       // the library's: "allreduce"
  const char* benchName;  // nccl-tests': "all_reduce"
};

// In Collective order: indexed by the enum.
inline constexpr std::array<CollectiveFacts, 13> kCollectiveFacts{{
    {Collective::AllReduce, "allreduce", "all_reduce"},
    {Collective::AllGather, "allgather", "all_gather"},
    {Collective::ReduceScatter, "reducescatter", "reduce_scatter"},
    {Collective::Broadcast, "broadcast", "broadcast"},
    {Collective::Reduce, "reduce", "reduce"},
    {Collective::AllToAll, "alltoall", "alltoall"},
    {Collective::SendRecv, "sendrecv", "sendrecv"},
    {Collective::Gather, "gather", "gather"},
    {Collective::Scatter, "scatter", "scatter"},
    {Collective::AllToAllV, "alltoallv", "alltoallv"},
    {Collective::AllGatherV, "allgatherv", "allgatherv"},
    {Collective::ReduceScatterV, "reducescatterv", "reducescatterv"},
    {Collective::Permute, "permute", "permute"},
}};

constexpr const CollectiveFacts& collectiveFacts(Collective c) { return kCollectiveFacts[static_cast<size_t>(c)]; }

constexpr bool collectiveTableInEnumOrder() {
  for (size_t i = 0; i < kCollectiveFacts.size(); ++i)
    if (kCollectiveFacts[i].collective != static_cast<Collective>(i)) return false;
  return true;
}
static_assert(collectiveTableInEnumOrder(), "kCollectiveFacts must follow Collective");
static_assert(static_cast<size_t>(Collective::Permute) + 1 == kCollectiveFacts.size(),
              "every Collective has its row in kCollectiveFacts");

}  // namespace trnccl
