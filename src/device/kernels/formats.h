// The narrow floating-point formats (fp16, bf16, OCP FP8 E4M3 and E5M2) and
// scalar conversions between them and FP32. These are the same code the
// kernels run (instantiated for the scalar ISA), so their bits are the
// kernels' bits; tests and tools use them to make and check data.
//
// Rules every conversion follows:
//  - Decoding is exact, subnormals included.
//  - Encoding rounds once, to nearest even or stochastically, and keeps
//    subnormals (no flush to zero).
//  - Overflow: fp16, bf16 and E5M2 round to +-infinity as IEEE
//    round-to-nearest-even does (a value at or above max + half an ulp).
//    E4M3 has no infinity: finite values beyond +-448 saturate to +-448, and
//    +-infinity becomes NaN.
//  - NaN in gives the format's canonical NaN out: the positive quiet NaN
//    (fp16 0x7E00, bf16 0x7FC0, E5M2 0x7E, E4M3 0x7F; FP32 0x7FC00000).
//  - Stochastic rounding rounds the magnitude up when the bits rounding drops
//    plus as many random bits overflow into the kept part: the probability of
//    rounding up is the dropped fraction, so the expected result is the value
//    (for values far below the smallest subnormal, to within 2^-31 of it).
//    With stochastic rounding a value beyond the largest finite can round to
//    the overflow result even below max + half an ulp.
#pragma once

#include <cstdint>
#include <optional>

#include "trnccl/trnccl.h"

namespace trnccl::device::kernels {

enum class Format : uint8_t { Fp16, Bf16, E4m3, E5m2 };

enum class Overflow : uint8_t {
  Infinity,  // overflow gives +-infinity (IEEE-like formats)
  Saturate,  // finite overflow gives +-max finite; +-infinity gives NaN (E4M3)
};

// A binary floating-point format: sign, exponent and mantissa bits, bias.
struct FormatSpec {
  int exponentBits;
  int mantissaBits;
  int bias;
  Overflow overflow;

  constexpr int bits() const { return 1 + exponentBits + mantissaBits; }
  constexpr uint32_t exponentMask() const { return ((1u << exponentBits) - 1) << mantissaBits; }
  constexpr uint32_t nanCode() const {
    // E4M3's only NaN is S.1111.111; the IEEE-like formats set the quiet bit.
    return overflow == Overflow::Saturate ? (1u << (bits() - 1)) - 1 : exponentMask() | (1u << (mantissaBits - 1));
  }
  // The largest code a rounded magnitude may reach: infinity, or max finite.
  constexpr uint32_t largestMagnitudeCode() const {
    return overflow == Overflow::Saturate ? nanCode() - 1 : exponentMask();
  }
};

constexpr FormatSpec spec(Format format) {
  switch (format) {
    case Format::Fp16:
      return {5, 10, 15, Overflow::Infinity};
    case Format::Bf16:
      return {8, 7, 127, Overflow::Infinity};
    case Format::E4m3:
      return {4, 3, 7, Overflow::Saturate};
    case Format::E5m2:
      return {5, 2, 15, Overflow::Infinity};
  }
  return {};
}

// The narrow format of a data type (fp16, bf16, fp8), if it has one.
std::optional<Format> narrowFormat(trncclDataType_t type);

// Exact value of a code (the low bits() bits of `code`).
float decode(Format format, uint32_t code);

// Round to nearest, ties to even.
uint32_t encodeNearestEven(Format format, float value);

// Stochastic rounding with the given random word: a rounding that drops s
// bits adds its top s bits (word >> (32 - s)) below the kept ones. The
// kernels' words have 16 random bits on top, zeros below (rounding.h).
uint32_t encodeStochastic(Format format, float value, uint32_t randomWord);

}  // namespace trnccl::device::kernels
