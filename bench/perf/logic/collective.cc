#include "logic/collective.h"

#include <algorithm>
#include <array>
#include <string>

#include "logic/usage_error.h"

namespace trnccl::perf {

namespace {

constexpr std::array<std::string_view, 13> kNames{
    "all_reduce", "all_gather", "reduce_scatter", "broadcast",  "reduce",         "alltoall", "sendrecv",
    "gather",     "scatter",    "alltoallv",      "allgatherv", "reducescatterv", "permute"};

// Collectives whose data size (for algbw) is every rank's share.
bool sized_by_all_shares(Collective c) {
  switch (c) {
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::alltoall:
    case Collective::gather:
    case Collective::scatter:
    case Collective::alltoallv:
    case Collective::allgatherv:
    case Collective::reducescatterv:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string_view collective_name(Collective collective) { return kNames.at(static_cast<size_t>(collective)); }

Collective parse_collective(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (name == kNames[i]) return static_cast<Collective>(i);
  }
  std::string names;
  for (std::string_view n : kNames) names += (names.empty() ? "" : ", ") + std::string(n);
  throw UsageError("unknown collective '" + std::string(name) + "': use one of " + names);
}

bool reduces(Collective c) {
  return c == Collective::all_reduce || c == Collective::reduce_scatter || c == Collective::reduce ||
         c == Collective::reducescatterv;
}

bool has_root(Collective c) {
  return c == Collective::broadcast || c == Collective::reduce || c == Collective::gather || c == Collective::scatter;
}

bool has_in_place(Collective c) { return c != Collective::alltoallv; }

Layout layout_for(Collective collective, size_t bytes, size_t type_size, int nranks) {
  const size_t count = bytes / type_size;
  const size_t n = static_cast<size_t>(nranks);
  const size_t share = count / n;
  switch (collective) {
    case Collective::all_gather:
    case Collective::allgatherv:
    case Collective::gather:
      return {share, share, share * n, share, 0};
    case Collective::reduce_scatter:
    case Collective::reducescatterv:
    case Collective::scatter:
      return {share, share * n, share, 0, share};
    case Collective::alltoall:
    case Collective::alltoallv:
      return {share, share * n, share * n, 0, 0};
    case Collective::all_reduce:
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::sendrecv:
    case Collective::permute:
      break;
  }
  return {count, count, count, 0, 0};
}

size_t row_bytes(const Layout& layout, size_t type_size) {
  return std::max(layout.send_count, layout.recv_count) * type_size;
}

double bus_factor(Collective collective, int nranks) {
  const double n = nranks;
  if (collective == Collective::all_reduce) return 2.0 * (n - 1) / n;
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
