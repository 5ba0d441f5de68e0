#include "nccl_tests/collective.h"

#include <algorithm>
#include <array>
#include <string>

#include "cli/usage_error.h"

namespace trnccl::perf {

namespace {

// Collectives whose data size (for algbw) is every rank's share.
bool sized_by_all_shares(Collective c) {
  switch (c) {
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll:
    case Collective::Gather:
    case Collective::Scatter:
    case Collective::AllToAllV:
    case Collective::AllGatherV:
    case Collective::ReduceScatterV:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string_view collective_name(Collective collective) { return collectiveFacts(collective).benchName; }

Collective parse_collective(std::string_view name) {
  for (const CollectiveFacts& c : kCollectiveFacts) {
    if (name == c.benchName) return c.collective;
  }
  std::string names;
  for (const CollectiveFacts& c : kCollectiveFacts) names += (names.empty() ? "" : ", ") + std::string(c.benchName);
  throw cli::UsageError("unknown collective '" + std::string(name) + "': use one of " + names);
}

bool reduces(Collective c) {
  return c == Collective::AllReduce || c == Collective::ReduceScatter || c == Collective::Reduce ||
         c == Collective::ReduceScatterV;
}

bool has_root(Collective c) {
  return c == Collective::Broadcast || c == Collective::Reduce || c == Collective::Gather || c == Collective::Scatter;
}

bool has_in_place(Collective c) { return c != Collective::AllToAllV; }

Layout layout_for(Collective collective, size_t bytes, size_t type_size, int nranks) {
  const size_t count = bytes / type_size;
  const size_t n = static_cast<size_t>(nranks);
  const size_t share = count / n;
  switch (collective) {
    case Collective::AllGather:
    case Collective::AllGatherV:
    case Collective::Gather:
      return {share, share, share * n, share, 0};
    case Collective::ReduceScatter:
    case Collective::ReduceScatterV:
    case Collective::Scatter:
      return {share, share * n, share, 0, share};
    case Collective::AllToAll:
    case Collective::AllToAllV:
      return {share, share * n, share * n, 0, 0};
    case Collective::AllReduce:
    case Collective::Broadcast:
    case Collective::Reduce:
    case Collective::SendRecv:
    case Collective::Permute:
      break;
  }
  return {count, count, count, 0, 0};
}

size_t row_bytes(const Layout& layout, size_t type_size) {
  return std::max(layout.send_count, layout.recv_count) * type_size;
}

double bus_factor(Collective collective, int nranks) {
  const double n = nranks;
  if (collective == Collective::AllReduce) return 2.0 * (n - 1) / n;
  // Every rank's share crosses the bus but the one that stays (nccl-tests'
  // gather and scatter too; the v-collectives as their even forms).
  if (sized_by_all_shares(collective)) return (n - 1) / n;
  return 1.0;  // broadcast, reduce, sendrecv, permute
}

Bandwidth bandwidth(Collective collective, const Layout& layout, size_t type_size, int nranks, double seconds) {
  double bytes = static_cast<double>(layout.count * type_size);
  if (sized_by_all_shares(collective)) bytes *= nranks;
  const double algbw = bytes / 1.0e9 / seconds;
  return {algbw, algbw * bus_factor(collective, nranks)};
}

}  // namespace trnccl::perf
