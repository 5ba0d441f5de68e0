// Deterministic mode (TRNCCL_DETERMINISTIC, trncclConfig_t.deterministic,
// trncclCollConfig_t.deterministic): every algorithm gives the same bits.
//
// An algorithm's own reduction order follows its data's path (a ring adds
// around the ring, a torus by rows then columns), so two algorithms round
// differently. Here the reduction is taken out of the algorithm: each block
// of the result has one owner rank, every rank sends its contribution of
// the block straight to the owner, and the owner reduces all n of them in
// rank order in one kernel call (accumulating in FP32 for 16- and 8-bit
// floats, rounding once). What remains of the algorithm is the data
// movement without arithmetic: for all-reduce, its all-gather of the reduced
// blocks (ring's where the algorithm has none for the call). Reduce-scatter,
// reduce-scatter-v and reduce are the owners' reduction alone, the same
// schedule whatever the algorithm. The per-element arithmetic is then the
// same function of the n inputs for every algorithm, rank count split and
// block size.
#pragma once

#include "algorithms/algorithm.h"

namespace trnccl::algo {

// `args`'s reducing collective in deterministic mode, with `algorithm`'s
// all-gather where there is one. Its name is "<algorithm>/deterministic".
Schedule deterministicSchedule(const Algorithm& algorithm, const CollectiveArgs& args);

// "<algorithm>/deterministic", a string that lives as long as the program.
const char* deterministicName(const char* algorithm);

}  // namespace trnccl::algo
