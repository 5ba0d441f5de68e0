// The calls of the collectives whose ranks' arguments differ (the
// v-collectives' uneven blocks, permute's peers) and their reference
// results, for the schedule-interpreter sweep. A pattern picks the shape:
// 0 even blocks packed in rank order (permute: shift by one), 1 uneven blocks
// with a gap after each (permute: reversal, a rank of odd groups keeps its
// own), 2 uneven blocks packed in reverse rank order (permute: an open chain,
// whose ends send or receive nothing). Uneven blocks include empty ones.
#pragma once

#include <optional>
#include <vector>

#include "algorithms/algorithm.h"
#include "schedule_interpreter.h"

namespace trnccl::test {

inline constexpr int kUnevenPatterns = 3;

// Does this collective take per-rank arguments (args.v or permute's peers)?
bool takesRankArguments(algo::Collective c);
// Every rank's arguments of `call` (its collective, nranks, count, op, root,
// inPlace) in `pattern`. count scales the blocks; args.count becomes each
// rank's own count argument.
std::vector<algo::CollectiveArgs> unevenCall(const algo::CollectiveArgs& call, int pattern);
// Rank r's buffers for the new collectives (gather, scatter and the ones
// above), inputs filled in, aliased where in place.
RankBuffers makeNewBuffers(const std::vector<algo::CollectiveArgs>& ranks, int r);
// What rank r's receive buffer must hold at element i; nullopt where the
// call writes nothing (gaps between blocks, a non-root of gather, a rank
// that receives nothing).
std::optional<double> expectedNew(const std::vector<algo::CollectiveArgs>& ranks, int r, size_t i);

}  // namespace trnccl::test
