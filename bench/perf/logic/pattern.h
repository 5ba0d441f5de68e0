#pragma once

#include <cstddef>
#include <optional>

#include "trnccl/trnccl.h"

namespace trnccl::perf {

// The data of a checked run: what each rank puts in its input and what every
// reduction over the ranks must give, computed in double from small integers.
struct PatternSpec {
  trncclDataType_t type;
  std::optional<trncclRedOp_t> op;  // none for collectives that only move data
  int nranks;
};

// Inputs repeat with this period in the element index, so buffers are filled
// and checked through a small table; it is prime, so a chunk that lands a
// power-of-two number of elements away from its place still shows.
inline constexpr size_t kPatternPeriod = 97;

// The value rank `rank` puts at element `index` of its input: a small
// non-negative integer, exact in every type. Sums are kept small enough that
// every partial sum is exact too, whatever order the algorithm adds in, and
// products use 1s with at most two 2s, so they stay exact powers of two.
double input_value(const PatternSpec& spec, int rank, size_t index);

struct ExpectedValue {
  double value;
  // How far a correct result may be from value: 0 except for the average in
  // a float type, whose final division rounds (one ulp).
  double tolerance;
};

// The reduction over all ranks of their input at `index`, as trnccl must
// return it. Requires spec.op.
ExpectedValue reduced_value(const PatternSpec& spec, size_t index);

}  // namespace trnccl::perf
