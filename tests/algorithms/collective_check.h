// Checks an algorithm's schedules for one collective call: the schedules of
// all ranks, run by the independent interpreter, must produce the
// double-precision reference result, write every output element exactly
// once, leave no message unmatched, and keep the algorithm's other promises.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"
#include "schedule_interpreter.h"

namespace trnccl::test {

// The collectives an algorithm may implement (send/recv is not one).
inline constexpr algo::Collective kAlgorithmCollectives[] = {
    algo::Collective::AllReduce,  algo::Collective::AllGather,      algo::Collective::ReduceScatter,
    algo::Collective::Broadcast,  algo::Collective::Reduce,         algo::Collective::AllToAll,
    algo::Collective::Gather,     algo::Collective::Scatter,        algo::Collective::AllToAllV,
    algo::Collective::AllGatherV, algo::Collective::ReduceScatterV, algo::Collective::Permute};

// Rank r's input element i: small integers, so every reduction order gives the same doubles.
double input(int rank, size_t i);
// op over value(0..n-1), avg dividing at the end.
double fold(trncclRedOp_t op, int n, const std::function<double(int)>& value);
// Rank r's buffers for the call, inputs filled in, aliased when in place.
RankBuffers makeBuffers(algo::Collective c, size_t count, int n, int r, bool inPlace);
// What rank r's receive buffer must hold at element i.
double expected(const algo::CollectiveArgs& a, int r, size_t i);
std::string describe(const algo::CollectiveArgs& a, const char* algorithm);

// May the schedules of this call send a message from rank `from` to rank `to`?
using MessageRule = std::function<bool(const algo::CollectiveArgs& args, int from, int to)>;
// The ring's rule: every rank sends to the next rank only.
bool toNextInRing(const algo::CollectiveArgs& args, int from, int to);
// The bidirectional rings' rule: every rank sends to a ring neighbour only.
bool toRingNeighbour(const algo::CollectiveArgs& args, int from, int to);

// What an algorithm promises beyond the result.
struct Rules {
  MessageRule messages;       // the messages it may send (empty: any)
  bool boundedSteps = false;  // no message is longer than args.maxStepElements (when set)
};

// Builds every rank's schedule for args (args.rank is ignored) and reads it
// again step by step from the algorithm's StepSource (the simulator's lazy
// path), REQUIREs the two to be equal step by step, and REQUIREs the checks
// above of the steps read.
void checkCollective(const algo::Algorithm& algorithm, algo::CollectiveArgs args, const Rules& rules = {});
// The same for a call whose ranks' arguments differ: ranks[r] is rank r's.
void checkRanks(const algo::Algorithm& algorithm, const std::vector<algo::CollectiveArgs>& ranks,
                const Rules& rules = {});
// `instances` x `local` ranks; interleaved: rank r on instance r % instances,
// else on instance r / local.
algo::RankLayout onInstances(int instances, int local, bool interleaved);
// gridWidth x gridHeight ranks on one instance, ranksPerChip neighbouring
// columns a chip; ranks in row-major order, or scrambled.
algo::RankLayout chipLayout(int gridWidth, int gridHeight, int ranksPerChip, bool scrambled = false);
// Where a rank of a chipLayout sits: its chip on the chip torus and its core on it.
struct ChipPlace {
  int chipX, chipY, core;
};
ChipPlace chipPlace(const algo::RankLayout& layout, int rank);

// checkCollective for every count {0, 1, 3, 17, 64} x op x in/out-of-place x
// root x maxStepElements {0, 2, 5} (x uneven pattern, uneven_calls.h, for the
// collectives whose ranks' arguments differ), on the group of `group`
// (nranks, layout).
void sweepGroup(const algo::Algorithm& algorithm, algo::Collective collective, const algo::CollectiveArgs& group,
                const Rules& rules = {});
// sweepGroup on flat groups of 1 to 8 and 16 ranks.
void sweep(const algo::Algorithm& algorithm, algo::Collective collective, const Rules& rules = {});

}  // namespace trnccl::test
