#pragma once

#include <cstdint>

namespace trnccl::perf {

// Binary floating-point formats narrower than float, which C++20 has no
// portable type for: the benchmark encodes its inputs and decodes trnccl's
// outputs itself, so a conversion bug in the library cannot hide in the check.
struct MinifloatFormat {
  int exponent_bits;
  int mantissa_bits;
  // IEEE-style formats reserve the top exponent for inf and NaN; OCP f8e4m3
  // ("FN") has no inf and only S.1111.111 is NaN, which buys it 448 as max.
  bool has_infinity;
};

inline constexpr MinifloatFormat kHalf{5, 10, true};
inline constexpr MinifloatFormat kBfloat16{8, 7, true};
inline constexpr MinifloatFormat kFloat8e4m3{4, 3, false};
inline constexpr MinifloatFormat kFloat8e5m2{5, 2, true};

// Rounds to nearest, ties to even. Overflow gives inf, or NaN for formats
// without inf.
uint32_t encode_minifloat(double value, MinifloatFormat format);
double decode_minifloat(uint32_t bits, MinifloatFormat format);

}  // namespace trnccl::perf
