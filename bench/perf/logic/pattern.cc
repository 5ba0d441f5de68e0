#include "logic/pattern.h"

#include <algorithm>
#include <cmath>

#include "logic/value_codec.h"
#include "nccl_tests/datatypes.h"

namespace trnccl::perf {

namespace {

// Values stay below this even where the type could hold more, so that
// integer results never wrap and are easy to read in a failure.
constexpr double kLargestInput = 100;

// A sum pattern: values in [0, modulus) such that the sum over all ranks,
// and so every partial sum, stays an exact integer of the type.
size_t sum_modulus(const PatternSpec& spec) {
  return static_cast<size_t>(std::min(std::floor(exact_integer_limit(spec.type) / spec.nranks), kLargestInput)) + 1;
}

// With more ranks than the type has exact integers (f8e5m2 has 8), only
// every stride-th rank adds a 1, which keeps the sums exact all the same.
size_t sum_stride(const PatternSpec& spec) {
  return static_cast<size_t>(std::ceil(spec.nranks / exact_integer_limit(spec.type)));
}

size_t value_modulus(const PatternSpec& spec) {
  return static_cast<size_t>(std::min(exact_integer_limit(spec.type), kLargestInput)) + 1;
}

}  // namespace

double input_value(const PatternSpec& spec, int rank, size_t index) {
  const size_t i = index % kPatternPeriod;
  const auto r = static_cast<size_t>(rank);
  if (!spec.op) return static_cast<double>((r * 31 + i * 7) % value_modulus(spec));
  switch (*spec.op) {
    case trncclSum:
    case trncclAvg:
      if (spec.nranks > exact_integer_limit(spec.type)) return (r + i) % sum_stride(spec) == 0 ? 1.0 : 0.0;
      return static_cast<double>((r * 3 + i) % sum_modulus(spec));
    case trncclProd:
      return r < 8 && (r + i) % 4 == 0 ? 2.0 : 1.0;  // at most two 2s: product <= 4
    default:
      break;
  }
  return static_cast<double>((r * 37 + i * 11) % value_modulus(spec));  // max and min
}

ExpectedValue reduced_value(const PatternSpec& spec, size_t index) {
  const trncclRedOp_t op = *spec.op;
  double result = input_value(spec, 0, index);
  for (int rank = 1; rank < spec.nranks; ++rank) {
    const double v = input_value(spec, rank, index);
    switch (op) {
      case trncclProd:
        result *= v;
        break;
      case trncclMax:
        result = std::max(result, v);
        break;
      case trncclMin:
        result = std::min(result, v);
        break;
      default:
        result += v;
        break;
    }
  }
  if (op != trncclAvg) return {result, 0.0};
  // The sum is exact; the division is not, and a float type rounds it once
  // (or twice: to FP32 on the way to a 16- or 8-bit type).
  if (!is_floating_point(spec.type)) return {std::trunc(result / spec.nranks), 0.0};  // C division
  const double average = result / spec.nranks;
  return {average, ulp(spec.type, average)};
}

}  // namespace trnccl::perf
