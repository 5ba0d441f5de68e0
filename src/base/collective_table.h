// The one table of the collectives: the enum the library, the benchmarks,
// the tests and the tools share, and each collective's names: the library's
// ("allreduce": trncclCommGetAlgorithm, traces, TRNCCL_CHECK messages) and
// nccl-tests' ("all_reduce": trnccl-perf's command line and reports) and
// nccom-test's short one ("allr"), where it has one.
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
  const char* nccomName;  // nccom-test's short name: "allr"; null where it has none
};

// In Collective order: indexed by the enum.
inline constexpr std::array<CollectiveFacts, 13> kCollectiveFacts{{
    {Collective::AllReduce, "allreduce", "all_reduce", "allr"},
    {Collective::AllGather, "allgather", "all_gather", "allg"},
    {Collective::ReduceScatter, "reducescatter", "reduce_scatter", "redsct"},
    {Collective::Broadcast, "broadcast", "broadcast", nullptr},
    {Collective::Reduce, "reduce", "reduce", nullptr},
    {Collective::AllToAll, "alltoall", "alltoall", "all_to_all"},
    {Collective::SendRecv, "sendrecv", "sendrecv", nullptr},
    {Collective::Gather, "gather", "gather", nullptr},
    {Collective::Scatter, "scatter", "scatter", nullptr},
    {Collective::AllToAllV, "alltoallv", "alltoallv", nullptr},
    {Collective::AllGatherV, "allgatherv", "allgatherv", nullptr},
    {Collective::ReduceScatterV, "reducescatterv", "reducescatterv", nullptr},
    {Collective::Permute, "permute", "permute", nullptr},
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
