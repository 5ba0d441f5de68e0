// FP32 <-> narrow formats (formats.h) on the lanes of an ISA wrapper V: codes
// travel zero-extended in 32-bit lanes. The encoder is written once, in
// integer operations on the FP32 bits, for every format and both rounding
// modes; the ISA wrappers add hardware conversions only where those give the
// same bits (see NarrowCodec).
#pragma once

#include <cstdint>

#include "device/kernels/formats.h"

namespace trnccl::kernels {
namespace {

inline constexpr uint32_t kFp32SignBit = 0x80000000u;
inline constexpr uint32_t kFp32Infinity = 0x7F800000u;
inline constexpr uint32_t kFp32CanonicalNaN = 0x7FC00000u;

template <class V>
typename V::F canonicalizeNaN(typename V::F value) {
  return V::select(V::isNaN(value), V::asF(V::splatU(kFp32CanonicalNaN)), value);
}

// Exact decoding. fp16 and E5M2 (an fp16 with the low 8 mantissa bits cut)
// go through the fp16 conversion. E4M3 is placed in the fp16 bit layout
// (same mantissa position, bias 15 instead of 7) and scaled by 2^8, exact and
// without FP32 denormals; its one NaN code has no fp16 counterpart there and
// is patched after.
template <class V, Format kFormat>
typename V::F decode(typename V::U code) {
  if constexpr (kFormat == Format::Fp16) {
    return V::halfToFloat(code);
  } else if constexpr (kFormat == Format::Bf16) {
    return V::asF(V::template shl<16>(code));
  } else if constexpr (kFormat == Format::E5m2) {
    return V::halfToFloat(V::template shl<8>(code));
  } else {
    static_assert(kFormat == Format::E4m3);
    const auto magnitude = V::bitAnd(code, V::splatU(0x7F));
    const auto scaled = V::mul(V::halfToFloat(V::template shl<7>(magnitude)), V::splatF(256.0f));
    const auto sign = V::template shl<24>(V::bitAnd(code, V::splatU(0x80)));
    const auto value = V::asF(V::bitOr(V::asU(scaled), sign));
    return V::select(V::equal(magnitude, V::splatU(0x7F)), V::asF(V::splatU(kFp32CanonicalNaN)),
                     value);
  }
}

// Rounds FP32 to the format in one step. The magnitude's bits are brought to
// the position where the format's last kept bit is bit `shift`, an addend
// is added and the sum shifted right by `shift`; carries propagate into the
// exponent by themselves. Round-to-nearest-even and stochastic rounding
// differ only in the addend:
//   nearest even: half an ulp - 1, plus 1 when the kept part is odd;
//   stochastic:   the low `shift` random bits.
// Normal range: the FP32 bits re-biased to the format's exponent, shift 23-M.
// Subnormal range: the significand (implicit bit included), shifted by 23-M
// plus how far the exponent lies below the format's minimum.
template <class V, Format kFormat, bool kStochastic>
typename V::U encode(typename V::F value, typename V::U randomBits) {
  using U = typename V::U;
  constexpr FormatSpec kSpec = spec(kFormat);
  constexpr uint32_t kM = kSpec.mantissaBits;
  constexpr uint32_t kBias = kSpec.bias;
  constexpr uint32_t kSmallestNormal = (128 - kBias) << 23;  // FP32 bits of 2^(1-bias)
  const U one = V::splatU(1);

  const U bits = V::asU(value);
  const U magnitude = V::bitAnd(bits, V::splatU(~kFp32SignBit));
  const U exponent = V::template shr<23>(magnitude);
  const U normal = V::sub(magnitude, V::splatU((127 - kBias) << 23));
  const U implicitBit = V::select(V::equal(exponent, V::splatU(0)), V::splatU(0), V::splatU(1u << 23));
  U significand = V::bitOr(V::bitAnd(magnitude, V::splatU((1u << 23) - 1)), implicitBit);
  // FP32 denormals have exponent field 0 but scale 2^-126, like field 1.
  const U subnormalShift = V::sub(V::splatU(151 - kM - kBias), V::maxU(exponent, one));
  const U maxShift = V::splatU(31);
  if constexpr (kStochastic) {
    // There are 32 random bits: a longer shift drops its excess first (the
    // probability of rounding up is then exact to 2^-31).
    significand = V::shrv(significand, V::sub(V::maxU(subnormalShift, maxShift), maxShift));
  }
  // Capping the shift at 31 keeps nearest-even exact: a significand below
  // 2^24 shifted that far rounds to zero either way.
  const auto isSubnormal = V::lessThan(magnitude, V::splatU(kSmallestNormal));
  const U kept = V::select(isSubnormal, significand, normal);
  const U shift = V::select(isSubnormal, V::minU(subnormalShift, maxShift), V::splatU(23 - kM));

  const U unit = V::shlv(one, shift);  // weight of the last kept bit
  U addend;
  if constexpr (kStochastic) {
    addend = V::bitAnd(randomBits, V::sub(unit, one));
  } else {
    const U halfMinusOne = V::sub(V::template shr<1>(unit), one);
    addend = V::add(halfMinusOne, V::bitAnd(V::shrv(kept, shift), one));
  }
  // Beyond the largest magnitude code: infinity, or E4M3's saturation at 448.
  const U rounded = V::minU(V::shrv(V::add(kept, addend), shift), V::splatU(kSpec.largestMagnitudeCode()));
  const U sign = V::template shr<32 - kSpec.bits()>(V::bitAnd(bits, V::splatU(kFp32SignBit)));
  // NaN becomes NaN; for E4M3, which has no infinity, so does infinity.
  constexpr uint32_t kLargestNonNaN =
      kSpec.overflow == Overflow::Saturate ? kFp32Infinity - 1 : kFp32Infinity;
  return V::select(V::lessThan(V::splatU(kLargestNonNaN), magnitude), V::splatU(kSpec.nanCode()),
                   V::bitOr(rounded, sign));
}

}  // namespace
}  // namespace trnccl::kernels
