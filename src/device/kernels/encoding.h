// FP32 <-> narrow formats (formats.h) on the lanes of an ISA wrapper V. The
// generic encoder is written once, in integer operations on the FP32 bits,
// for every format and both rounding modes (codes come back zero-extended in
// 32-bit lanes). FP8 also has a route through the hardware's fp16
// conversions, in 16-bit lanes, that gives the same bits for nearest even
// (see NarrowCodec, which picks).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "device/kernels/formats.h"

namespace trnccl::device::kernels {
namespace {

inline constexpr uint32_t kFp32SignBit = 0x80000000u;
inline constexpr uint32_t kFp32Infinity = 0x7F800000u;
inline constexpr uint32_t kFp32CanonicalNaN = 0x7FC00000u;

template <class V>
typename V::F canonicalizeNaN(typename V::F value) {
  return V::select(V::isNaN(value), V::asF(V::splatU(kFp32CanonicalNaN)), value);
}

// FP8 codes (sign-extended to 16-bit lanes) to fp16 bits, exactly: E5M2 is
// an fp16 without its low 8 mantissa bits. E4M3 lands in the fp16 layout at
// the same mantissa position but with bias 15 instead of 7, that is at its
// value x 2^-8; its NaN (S.1111.111) becomes an fp16 NaN.
template <class V, Format kFormat>
typename V::H fp8ToHalf(typename V::H code) {
  if constexpr (kFormat == Format::E5m2) {
    return V::template shlH<8>(code);
  } else {
    static_assert(kFormat == Format::E4m3);
    // The sign-extended code shifted: sign in bits 15 and 14, magnitude in
    // 13..7. Adding 0x80 carries into bit 14 for NaN's magnitude (0x7F)
    // alone, so bit 14 of the sum differs from the sign exactly for NaN:
    // xoring that difference into bit 14 clears the sign's copy, or sets
    // fp16's top exponent bit for NaN (an fp16 NaN; stores canonicalize NaN).
    const auto shifted = V::template shlH<7>(code);
    return V::bitXor(shifted, V::bitAnd(V::addH(shifted, V::splatH(0x80)), V::splatH(0x4000)));
  }
}

// The bf16 bits (FP32's top 16) of an FP8 magnitude code's value x
// 2^scaleExponent; NaN is 0x7FC0. Exact for every code (a constant
// evaluation that is not fails to compile).
template <Format kFormat>
constexpr uint32_t fp8MagnitudeAsBf16(uint32_t magnitude, int scaleExponent) {
  constexpr FormatSpec kSpec = spec(kFormat);
  const uint32_t exponent = magnitude >> kSpec.mantissaBits;
  const uint32_t fraction = magnitude & ((1u << kSpec.mantissaBits) - 1);
  const bool topExponent = exponent == (1u << kSpec.exponentBits) - 1;
  if (magnitude == kSpec.nanCode() || (kSpec.overflow == Overflow::Infinity && topExponent && fraction != 0))
    return 0x7FC0;
  if (kSpec.overflow == Overflow::Infinity && topExponent) return 0x7F80;
  float value = static_cast<float>(exponent == 0 ? fraction : fraction | (1u << kSpec.mantissaBits));
  for (int e = (exponent == 0 ? 1 : static_cast<int>(exponent)) - kSpec.bias - kSpec.mantissaBits + scaleExponent;
       e != 0; e += e > 0 ? -1 : 1)
    value = e > 0 ? value * 2 : value / 2;
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0xFFFF) != 0) throw "an FP8 value that bf16 does not hold";
  return bits >> 16;
}

// 64-byte tables and byte-permute indices for FP8 in byte lanes (V::B).
struct ByteTable {
  alignas(64) uint8_t bytes[128];
};

// Bytes `high` then `low` of each FP8 magnitude's bf16 bits.
template <Format kFormat, int kScaleExponent>
constexpr ByteTable fp8Bf16Bytes(bool high) {
  ByteTable table{};
  for (uint32_t m = 0; m < 128; ++m) {
    const uint32_t bits = fp8MagnitudeAsBf16<kFormat>(m, kScaleExponent);
    table.bytes[m] = static_cast<uint8_t>(high ? bits >> 8 : bits);
  }
  return table;
}

// Index i (of 64) picks byte f(i) of two vectors (0..127).
template <class Fn>
constexpr ByteTable byteIndex(Fn f) {
  ByteTable table{};
  for (uint32_t i = 0; i < 64; ++i) table.bytes[i] = static_cast<uint8_t>(f(i));
  return table;
}

// 64 FP8 codes (byte lanes) to FP32 at their value x 2^kScaleExponent,
// exactly, through bf16 (which holds every FP8 value): two table lookups
// give each code's bf16 high byte (the sign ORed in) and low byte, two
// permutes of those interleave them into words, and a shift or a mask
// widens each word to FP32. Vector w of out holds elements 16w .. 16w + 15:
// the first permute makes lane j's low word element j and its high word
// element 16 + j, the second the same for 32 + j and 48 + j.
template <class V, Format kFormat, int kScaleExponent>
void fp8ToFloatByBytes(typename V::B codes, typename V::F* out) {
  static constexpr ByteTable kHigh = fp8Bf16Bytes<kFormat, kScaleExponent>(true);
  static constexpr ByteTable kLow = fp8Bf16Bytes<kFormat, kScaleExponent>(false);
  static constexpr ByteTable kInterleave[2] = {
      byteIndex([](uint32_t i) { return (i % 2) * 64 + (i % 4 / 2) * 16 + i / 4; }),
      byteIndex([](uint32_t i) { return (i % 2) * 64 + (i % 4 / 2) * 16 + i / 4 + 32; })};
  auto high = V::lookup128(kHigh.bytes, codes);
  high = V::bitOr(high, V::bitAnd(codes, V::splatB(0x80)));
  const auto low = V::lookup128(kLow.bytes, codes);
  for (size_t w = 0; w < 2; ++w) {
    const auto words = V::permute2(low, V::loadB(kInterleave[w].bytes), high);
    out[2 * w] = V::asF(V::template shl<16>(words));
    out[2 * w + 1] = V::asF(V::bitAnd(words, V::splatU(0xFFFF0000u)));
  }
}

// Stochastic rounding to a format with FP32's exponent range (bf16), whose
// subnormals are FP32's denormals: encodeInIntegers()'s steps at a constant
// shift, the sign riding along (below NaN no carry reaches it; the largest
// finite magnitude plus the random bits reaches infinity at most). Nearest
// even keeps encodeInIntegers(): it is only the fallback of the hardware's
// bf16 conversion there, and a shorter fallback inlined into the loop made
// 8-source bf16 sums at 64 MiB about 10% slower on Zen 4. The code is left
// in each lane's top 16 bits (the bits below are not part of it), where one
// word permute picks two vectors' codes (NarrowCodec); shifted down it is
// encode()'s.
template <class V, Format kFormat>
typename V::U encodeStochasticInFp32RangeOnTop(typename V::F value, typename V::U randomWord) {
  constexpr FormatSpec kSpec = spec(kFormat);
  static_assert(kSpec.bias == 127 && kSpec.overflow == Overflow::Infinity && kSpec.bits() == 16);
  const auto rounded = V::add(V::asU(value), V::template shr<16>(randomWord));
  return V::select(V::isNaN(value), V::splatU(kSpec.nanCode() << 16), rounded);
}

// Rounds FP32 to the format in one step. The magnitude's bits are brought to
// the position where the format's last kept bit is bit `shift`, an addend
// is added and the sum shifted right by `shift`; carries propagate into the
// exponent by themselves. Round-to-nearest-even and stochastic rounding
// differ only in the addend:
//   nearest even: half an ulp - 1, plus 1 when the kept part is odd;
//   stochastic:   the random word's top `shift` bits (rounding.h).
// Normal range: the FP32 bits re-biased to the format's exponent, shift 23-M.
// Subnormal range: the significand (implicit bit included), shifted by 23-M
// plus how far the exponent lies below the format's minimum.
template <class V, Format kFormat, bool kStochastic>
typename V::U encodeInIntegers(typename V::F value, typename V::U randomWord) {
  using U = typename V::U;
  constexpr FormatSpec kSpec = spec(kFormat);
  constexpr uint32_t kM = kSpec.mantissaBits;
  constexpr uint32_t kBias = kSpec.bias;
  constexpr uint32_t kSmallestNormal = (128 - kBias) << 23;  // FP32 bits of 2^(1-bias)
  const U one = V::splatU(1);

  const U bits = V::asU(value);
  const U magnitude = V::bitAnd(bits, V::splatU(~kFp32SignBit));
  U kept = magnitude;
  U shift = V::splatU(23 - kM);
  // A format with FP32's exponent range (bf16) has FP32 denormals as its
  // subnormals, bit for bit: the normal-range step serves both.
  if constexpr (kBias != 127) {
    const U exponent = V::template shr<23>(magnitude);
    const U normal = V::sub(magnitude, V::splatU((127 - kBias) << 23));
    const U implicitBit = V::select(V::equal(exponent, V::splatU(0)), V::splatU(0), V::splatU(1u << 23));
    U significand = V::bitOr(V::bitAnd(magnitude, V::splatU((1u << 23) - 1)), implicitBit);
    // FP32 denormals have exponent field 0 but scale 2^-126, like field 1.
    const U subnormalShift = V::sub(V::splatU(151 - kM - kBias), V::maxU(exponent, one));
    const U maxShift = V::splatU(31);
    if constexpr (kStochastic) {
      // A shift beyond the word's 32 bits drops its excess first (the
      // probability of rounding up stays within the 16 random bits' 2^-16).
      significand = V::shrv(significand, V::sub(V::maxU(subnormalShift, maxShift), maxShift));
    }
    // Capping the shift at 31 keeps nearest-even exact: a significand below
    // 2^24 shifted that far rounds to zero either way.
    const auto isSubnormal = V::lessThan(magnitude, V::splatU(kSmallestNormal));
    kept = V::select(isSubnormal, significand, normal);
    shift = V::select(isSubnormal, V::minU(subnormalShift, maxShift), shift);
  }

  const U unit = V::shlv(one, shift);  // weight of the last kept bit
  U addend;
  if constexpr (kStochastic) {
    addend = V::shrv(randomWord, V::sub(V::splatU(32), shift));
  } else {
    const U halfMinusOne = V::sub(V::template shr<1>(unit), one);
    addend = V::add(halfMinusOne, V::bitAnd(V::shrv(kept, shift), one));
  }
  // Beyond the largest magnitude code: infinity, or E4M3's saturation at 448.
  const U rounded = V::minU(V::shrv(V::add(kept, addend), shift), V::splatU(kSpec.largestMagnitudeCode()));
  const U sign = V::template shr<32 - kSpec.bits()>(V::bitAnd(bits, V::splatU(kFp32SignBit)));
  // NaN becomes NaN; for E4M3, which has no infinity, so does infinity.
  constexpr uint32_t kLargestNonNaN = kSpec.overflow == Overflow::Saturate ? kFp32Infinity - 1 : kFp32Infinity;
  return V::select(V::lessThan(V::splatU(kLargestNonNaN), magnitude), V::splatU(kSpec.nanCode()),
                   V::bitOr(rounded, sign));
}

// FP32 to the format's codes, rounded once (nearest even, or stochastically
// with the random bits).
template <class V, Format kFormat, bool kStochastic>
typename V::U encode(typename V::F value, typename V::U randomWord) {
  if constexpr (kStochastic && spec(kFormat).bias == 127)
    return V::template shr<16>(encodeStochasticInFp32RangeOnTop<V, kFormat>(value, randomWord));
  else
    return encodeInIntegers<V, kFormat, kStochastic>(value, randomWord);
}

// Rounds fp16 bits to FP8 (nearest even): E5M2 keeps the top 8 bits, E4M3
// (whose fp16 bits hold its value x 2^-8) the top 7 below the sign. Exact
// for a value rounded to odd into fp16 first, because fp16 keeps at least 7
// more bits than either FP8 format at every magnitude, subnormals included.
// NaN gives NaN; so does infinity for E4M3, which has none.
//
// Both formats' codes are made in the top byte of the 16 bits, where the
// rounding is (x + 0x7F + (bit 8 of x)) >> 8: E5M2's bits are fp16's as they
// are; E4M3's magnitude is shifted up by one, out of the sign's place. The
// magnitude shifted up by one (the sign shifted out) is above 0xF800 for
// NaN and at least 0xF800 for NaN or infinity.
template <class V, Format kFormat>
typename V::H halfToFp8NearestEven(typename V::H half) {
  constexpr FormatSpec kSpec = spec(kFormat);
  static_assert(10 - kSpec.mantissaBits == (kFormat == Format::E5m2 ? 8 : 7));
  const auto splat = [](uint16_t v) { return V::splatH(v); };
  const auto roundedAtBit8 = [&](typename V::H x) { return V::addOneIfBitH(V::addH(x, splat(0x7F)), x, splat(0x100)); };
  const auto magnitudeUp = V::template shlH<1>(half);
  if constexpr (kFormat == Format::E5m2) {
    // The sign rides along: below NaN no carry reaches bit 15.
    const auto isNaN = V::notBelowH(magnitudeUp, splat(0xF801));
    return V::selectH(isNaN, splat(kSpec.nanCode()), V::template shrH<8>(roundedAtBit8(half)));
  } else {
    static_assert(kFormat == Format::E4m3);
    // Finite values truncate to fp16's largest finite at most, so an all-ones
    // exponent is infinity or NaN, both NaN here.
    const auto special = V::notBelowH(magnitudeUp, splat(0xF800));
    // Saturate at 448 (0x7E), then the sign into bit 15.
    auto code = V::minH(roundedAtBit8(magnitudeUp), splat((kSpec.largestMagnitudeCode() << 8) | 0xFF));
    code = V::bitOr(code, V::bitAnd(half, splat(0x8000)));
    return V::selectH(special, splat(kSpec.nanCode()), V::template shrH<8>(code));
  }
}

// Byte i of two 16-bit-lane vectors (0..127): the high, or the low, byte of
// their word i.
inline constexpr ByteTable kHighBytesOfWords = byteIndex([](uint32_t i) { return 2 * i + 1; });
inline constexpr ByteTable kLowBytesOfWords = byteIndex([](uint32_t i) { return 2 * i; });

// Bytes `kept` rounded to nearest even by the bytes below them, `rest` (the
// rounding bit on top, then sticky bits): up when rest exceeds 0x80, or
// reaches it with kept odd: when rest > 0x80 - (kept & 1), a table lookup.
template <class V>
typename V::B roundedByRestB(typename V::B kept, typename V::B rest) {
  static constexpr ByteTable kThreshold = byteIndex([](uint32_t i) { return 0x80 - (i & 1); });
  return V::addOneWhereB(V::greaterB(rest, V::lookup64(kThreshold.bytes, kept)), kept);
}

// halfToFp8NearestEven() on 64 values at once, in byte lanes: h0 holds
// elements 0..31, h1 32..63. Two permutes pick from each element's 16 bits
// `kept`, the 8 bits the code keeps (E5M2: fp16's top byte, sign included;
// E4M3: the 8 below the sign), and `rest`, the 8 below them, for
// roundedByRestB.
template <class V, Format kFormat>
typename V::B halfToFp8NearestEvenBytes(typename V::H h0, typename V::H h1) {
  constexpr FormatSpec kSpec = spec(kFormat);
  const auto highOfWords = V::loadB(kHighBytesOfWords.bytes), lowOfWords = V::loadB(kLowBytesOfWords.bytes);
  const auto splat = [](uint8_t v) { return V::splatB(v); };
  const auto roundedUp = [](auto kept, auto rest) { return roundedByRestB<V>(kept, rest); };
  if constexpr (kFormat == Format::E5m2) {
    const auto kept = V::permute2(h0, highOfWords, h1);
    const auto rounded = roundedUp(kept, V::permute2(h0, lowOfWords, h1));
    // Infinity stays (its rest is 0); NaN (the hardware's fp16 NaNs are
    // quiet: kept's magnitude above 0x7C) becomes the canonical NaN.
    return V::selectB(V::greaterB(V::bitAnd(kept, splat(0x7F)), splat(0x7C)), splat(kSpec.nanCode()), rounded);
  } else {
    static_assert(kFormat == Format::E4m3);
    const auto up0 = V::template shlH<1>(h0), up1 = V::template shlH<1>(h1);
    const auto kept = V::permute2(up0, highOfWords, up1);
    const auto rounded = roundedUp(kept, V::permute2(up0, lowOfWords, up1));
    // Saturate at 448 (fp16's exponent 16 and up), then the sign.
    const auto sign = V::bitAnd(V::permute2(h0, highOfWords, h1), splat(0x80));
    const auto code = V::bitOr(V::minB(rounded, splat(kSpec.largestMagnitudeCode())), sign);
    // fp16's all-ones exponent: infinity or NaN, both NaN here.
    return V::selectB(V::notBelowB(kept, splat(0xF8)), splat(kSpec.nanCode()), code);
  }
}

// E4M3 nearest even for 64 values at fp16's scale (x 2^-8; in[w] holds
// elements 16w .. 16w + 15) without the fp16 conversion, for the common
// block: every value zero or rounding to a normal E4M3 (2^-6 .. 448 at the
// true scale). Declines (false, out untouched) any other block, which the
// caller encodes through fp16.
//
// There E4M3's exponent is FP32's minus 112 = 0x70, FP32's low 4 exponent
// bits: each value's code is FP32 bits 20..26 rounded at bit 19. A sticky
// bit jammed into bit 16 (set when any bit below it is) lets the FP32 top
// halves (bf16 bits, one word permute per two vectors) stand for the value.
// Shifted up by 4, a word's high byte is `kept` (FP32 exponent bits 0..4,
// then the 3 mantissa bits: 0x80 + the code in range) and its low byte
// `rest` (the rounding bit on top, sticky bits below); rounding as in
// roundedByRestB. `top`, the unshifted high byte, holds the sign
// and exponent bits 1..7, and its exponent's top 6 bits say which rounded
// `kept` is valid: for exponents 112..127, 0x88..0xFE (codes 0x08..0x7E:
// exponent 112's values are E4M3 subnormals, whose code is right only where
// it rounds up to 2^-6; 0x7F and above saturate or overflow); for exponents
// 0..3, 0 (zero, and FP32 denormals that round to it; exponents 1..3 give
// 8 and up); none for other exponents. A signed saturating add of an offset
// looked up by those 6 bits makes that one unsigned compare: +120 takes
// 0x88..0xFE (-120..-2) to 0..0x76 and the rest to 0x77 and up, +118 takes
// only 0 below 0x77, and -128 leaves every byte negative (0x80 and up).
// Always inlined: as a call (GCC declined to inline it) its vectors went
// through memory, and 2-source E4M3 sums at 1 MiB ran at 24 GB/s, not 36.
template <class V>
[[gnu::always_inline]] inline bool tryE4m3NormalRangeBytes(const typename V::F* in, typename V::B& out) {
  static constexpr ByteTable kOffset = byteIndex([](uint32_t exponentTop6) {
    return exponentTop6 >= 112 / 4 && exponentTop6 <= 127 / 4 ? 120 : exponentTop6 == 0 ? 118 : 0x80;
  });
  typename V::H words[2];
  for (size_t h = 0; h < 2; ++h) {
    const auto jam = [&](size_t w) { return V::orIfAny(V::asU(in[w]), V::splatU(0xFFFF), V::splatU(0x10000)); };
    words[h] = V::topHalves(jam(2 * h), jam(2 * h + 1));
  }
  const auto highOfWords = V::loadB(kHighBytesOfWords.bytes), lowOfWords = V::loadB(kLowBytesOfWords.bytes);
  const auto up0 = V::template shlH<4>(words[0]), up1 = V::template shlH<4>(words[1]);
  const auto kept = V::permute2(up0, highOfWords, up1);
  const auto rest = V::permute2(up0, lowOfWords, up1);
  const auto top = V::permute2(words[0], highOfWords, words[1]);
  const auto rounded = roundedByRestB<V>(kept, rest);
  // Bits 0..5 of top >> 1 (the bits above them do not index) are the exponent's top 6.
  const auto offset = V::lookup64(kOffset.bytes, V::template shrH<1>(top));
  if (!V::allB(V::lessThanB(V::addSaturatingB(rounded, offset), V::splatB(0x77)))) return false;
  out = V::selectBits(V::splatB(0x80), top, rounded);
  return true;
}

// Truncates fp16 bits (E4M3's at its value x 2^-8) to FP8: for finite
// values within the format's range.
template <class V, Format kFormat>
typename V::H halfToFp8TowardZero(typename V::H half) {
  if constexpr (kFormat == Format::E5m2) {
    return V::template shrH<8>(half);
  } else {
    static_assert(kFormat == Format::E4m3);
    const auto magnitude = V::template shrH<7>(V::bitAnd(half, V::splatH(0x7FFF)));
    return V::bitOr(magnitude, V::bitAnd(V::template shrH<8>(half), V::splatH(0x80)));
  }
}

// halfToFp8TowardZero() on 64 values at once, in byte lanes (h0 elements
// 0..31, h1 32..63): E5M2 is each word's high byte; E4M3 the 8 bits below
// the sign (its magnitude: bit 14 is 0 within the format's range) with the
// sign ORed in.
template <class V, Format kFormat>
typename V::B halfToFp8TowardZeroBytes(typename V::H h0, typename V::H h1) {
  const auto highOfWords = V::loadB(kHighBytesOfWords.bytes);
  if constexpr (kFormat == Format::E5m2) {
    return V::permute2(h0, highOfWords, h1);
  } else {
    static_assert(kFormat == Format::E4m3);
    const auto magnitude = V::permute2(V::template shlH<1>(h0), highOfWords, V::template shlH<1>(h1));
    return V::bitOr(magnitude, V::bitAnd(V::permute2(h0, highOfWords, h1), V::splatB(0x80)));
  }
}

}  // namespace
}  // namespace trnccl::device::kernels
