// Test inputs and their independently computed reference results.
//
// Reduction inputs are chosen so that the exact result is representable in
// the type whatever order the library combines them in (at most 8 ranks):
//   floats  sum/avg  {-1, 0, 1, 2} ({-1, 0, 1} for e5m2, which holds every
//                    integer only up to 8): partial sums stay exact integers
//           prod     {1, 2, -1, -2, 0.5}: every partial product is +-2^k, |k| <= 8
//           max/min  a table of signed values exact in every float type
//   integers sum/prod/max/min: arbitrary bits, so sums and products wrap as
//           the C type; avg: small values (sum exact, then C truncation).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "trnccl/trnccl.h"

namespace trnccl::test {

// Deterministic pseudo-random 64 bits of the arguments.
uint64_t mixBits(uint64_t a, uint64_t b, uint64_t c, uint64_t d);

// What `rank` contributes at element i of a reduction with `op`.
uint64_t reductionInput(trncclDataType_t type, trncclRedOp_t op, int rank, size_t i, uint64_t salt);
// Arbitrary bits of the type's width, for collectives that only move data.
uint64_t movedInput(trncclDataType_t type, int rank, size_t i, uint64_t salt);

// Whether `got` is the reduction of `inputs` (one per rank, in rank order):
// integers and exact float results bit for bit (value equality for floats,
// so +0 == -0), float avg within one ulp of the type at sum / nranks. On a
// mismatch, *expected says what was expected.
bool reductionMatches(trncclDataType_t type, trncclRedOp_t op, const std::vector<uint64_t>& inputs, uint64_t got,
                      std::string* expected);

}  // namespace trnccl::test
