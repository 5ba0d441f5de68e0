// How each type meets the kernel's lanes in memory, kGroup vectors at a time:
// load() decodes kGroup * kLanes elements, store() encodes them (rounding to
// nearest even), splat() puts one element's value in every lane (exactly).
// Narrow formats also round stochastically, a whole block of vectors at once
// with the elements' random words (rounding.h: one V::U per vector).
// Every store writes NaN as the type's canonical NaN.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "device/kernels/encoding.h"
#include "device/kernels/simd/lanes.h"

namespace trnccl::device::kernels {
namespace {

template <class V>
struct Fp32Codec {
  using F = typename V::F;
  static constexpr size_t kSize = 4;
  static constexpr size_t kGroup = 1;
  static constexpr bool kRounds = false;  // FP32 results are never rounded stochastically
  static constexpr bool kComputeBound = false;

  static void load(const std::byte* p, F* out) { out[0] = V::loadF(p); }
  static F splat(const std::byte* p) { return V::splatF(simd::loadAs<float>(p)); }
  static void store(std::byte* p, const F* in) { V::storeF(p, canonicalizeNaN<V>(in[0])); }
};

// kHalfScaled (E4M3 only): lanes hold the values x 2^-8, where fp16 holds
// E4M3 (see fp8ToHalf), which saves a multiply on each load and store. Exact
// for kernels whose op commutes with a power-of-two scale (kScaleInvariant in
// ops.h): scaled E4M3 sums stay far above FP32's denormals.
template <class V, Format kFormat, bool kHalfScaled = false>
struct NarrowCodec {
  static_assert(!kHalfScaled || kFormat == Format::E4m3);
  using F = typename V::F;
  static constexpr size_t kSize = spec(kFormat).bits() / 8;
  // FP8 goes through byte lanes where V has them (64 codes, four F vectors),
  // otherwise through 16-bit lanes, which hold the elements of kHalfGroup F
  // vectors.
  static constexpr bool kBytes = kSize == 1 && requires { V::kByteLanes; };
  static constexpr size_t kHalfGroup = V::kHalfLanes / V::kLanes;
  static constexpr size_t kGroup = kSize == 2 ? 1 : kBytes ? 4 : kHalfGroup;
  static constexpr bool kRounds = true;
  // FP8 kernels run as fast from DRAM as from L1 (their decode and encode
  // bound them); 16-bit ones are memory-bound.
  static constexpr bool kComputeBound = kSize == 1;

  static void load(const std::byte* p, F* out) {
    if constexpr (kFormat == Format::Fp16) {
      out[0] = V::loadHalf(p);
    } else if constexpr (kFormat == Format::Bf16) {
      out[0] = V::asF(V::template shl<16>(V::loadU16(p)));
    } else if constexpr (kBytes) {
      fp8ToFloatByBytes<V, kFormat, kFormat == Format::E4m3 && kHalfScaled ? -8 : 0>(V::loadB(p), out);
    } else {
      V::halfToFloat(fp8ToHalf<V, kFormat>(V::loadI8ToH(p)), out);
      if constexpr (kFormat == Format::E4m3 && !kHalfScaled)
        for (size_t g = 0; g < kGroup; ++g) out[g] = V::mul(out[g], V::splatF(256.0f));
    }
  }

  // The element's own value, not scaled (see kHalfScaled).
  static F splat(const std::byte* p) {
    const uint32_t code = kSize == 2 ? simd::loadAs<uint16_t>(p) : simd::loadAs<uint8_t>(p);
    return V::splatF(decode(kFormat, code));
  }

  // FP8 in byte lanes. Always inlined: GCC declined to inline it into
  // 8-source E4M3 PreMulSum once it held both E4M3 routes, and as a call its
  // vectors went through memory (about 12% slower).
  [[gnu::always_inline]] static void store(std::byte* p, const F* in) requires kBytes {
    if constexpr (kFormat == Format::E4m3) {
      // Most blocks take the route without the fp16 conversion.
      F scaled[kGroup];
      const F* atHalfScale = in;
      if constexpr (!kHalfScaled) {
        for (size_t g = 0; g < kGroup; ++g) scaled[g] = V::mul(in[g], V::splatF(0x1p-8f));
        atHalfScale = scaled;
      }
      typename V::B codes;
      if (tryE4m3NormalRangeBytes<V>(atHalfScale, codes)) return V::storeB(p, codes);
    }
    // Inlined: called out of line (the vectors passed by value), it made
    // 8-source E4M3 sums at 64 MiB about 12% slower.
    storeThroughHalf(p, in);
  }
  // 16-bit codes through the ISA's conversion instruction where it has one,
  // the generic encoder out of line for the vectors it declines (NaN, and
  // bf16's denormals). Always inlined: as a call holding the encoder too,
  // GCC kept it out of line, which cost 2-source bf16 and fp16 sums 10-20%
  // at 4 KiB and 1 MiB and PreMulSum 35-50% (the vectors went through
  // memory; issue 19, seventh pass).
  [[gnu::always_inline]] static void store(std::byte* p, const F* in) requires(kSize == 2) {
    if constexpr (kHardwareNearestEven) {
      if (!tryHardwareNearestEven(p, in[0])) encodeNearestEvenOutOfLine(p, in[0]);
    } else {
      storeCodes(p, encode<V, kFormat, false>(in[0], V::splatU(0)));
    }
  }
  static void store(std::byte* p, const F* in) requires(kSize == 1 && !kBytes) {
    if constexpr (requires { V::floatToHalfTowardZero(in); }) {
      F jammed[kGroup];
      for (size_t g = 0; g < kGroup; ++g) jammed[g] = jammedAtHalfScale(in[g]);
      V::storeHAsU8(p, halfToFp8NearestEven<V, kFormat>(V::floatToHalfTowardZero(jammed)));
    } else {
      for (size_t g = 0; g < kGroup; ++g, p += V::kLanes * kSize) {
        const F value = kHalfScaled ? V::mul(in[g], V::splatF(256.0f)) : in[g];
        storeCodes(p, encode<V, kFormat, false>(value, V::splatU(0)));
      }
    }
  }

  // kVectors vectors (whole groups) rounded stochastically, vector v with
  // the random words random[v].
  template <size_t kVectors>
  static void storeRoundingStochastically(std::byte* p, const F* in, const typename V::U* random) {
    static_assert(kVectors % kGroup == 0);
    if constexpr (kFormat == Format::Bf16 && requires(typename V::U u) { V::storeTopHalves(p, u, u); }) {
      // Two vectors' codes picked from their lanes' top halves by one word
      // permute, instead of a shift and a narrowing store per vector (2-source
      // sums at 64 MiB about 1.07 -> 1.14 of STREAM add, issue 19).
      static_assert(kVectors % 2 == 0);
      const auto onTop = [&](size_t v) { return encodeStochasticInFp32RangeOnTop<V, kFormat>(in[v], random[v]); };
      for (size_t v = 0; v < kVectors; v += 2) V::storeTopHalves(p + v * V::kLanes * kSize, onTop(v), onTop(v + 1));
    } else if constexpr (kStochasticViaHalf) {
      if (tryStochasticViaHalf<kVectors>(p, in, random)) return;
      // Copies, so that the caller's arrays need not live in memory.
      F values[kVectors];
      typename V::U words[kVectors];
      for (size_t v = 0; v < kVectors; ++v) values[v] = in[v], words[v] = random[v];
      encodeStochasticallyOutOfLine<kVectors>(p, values, words);
    } else {
      encodeStochastically<kVectors>(p, in, random);
    }
  }

 private:
  // Whether stochastic rounding has the route through the hardware's fp16
  // conversion (tryStochasticViaHalf).
  static constexpr bool kStochasticViaHalf = kFormat != Format::Bf16 && requires(std::byte * p, const F* in) {
    V::storeHalfTowardZero(p, in[0]), V::floatToHalfTowardZero(in);
  };

  // Stochastic rounding in the generic encoder.
  template <size_t kVectors>
  static void encodeStochastically(std::byte* p, const F* in, const typename V::U* random) {
    for (size_t v = 0; v < kVectors; ++v, p += V::kLanes * kSize)
      storeCodes(p, encode<V, kFormat, true>(kHalfScaled ? V::mul(in[v], V::splatF(256.0f)) : in[v], random[v]));
  }
  // The same, for the blocks the fp16 route declines: out of line, so that
  // the loop around the common route keeps its registers (inlined, its
  // constants crowded the route's out: FP8 e4m3 2-source sums at 1 MiB
  // about 20 -> 22.5 GB/s).
  template <size_t kVectors>
  [[gnu::noinline]] static void encodeStochasticallyOutOfLine(std::byte* p, const F* in, const typename V::U* random) {
    encodeStochastically<kVectors>(p, in, random);
  }

  // FP8 nearest even in byte lanes through the hardware's fp16 conversion
  // (jammedAtHalfScale).
  static void storeThroughHalf(std::byte* p, const F* in) {
    F jammed[kGroup];
    for (size_t g = 0; g < kGroup; ++g) jammed[g] = jammedAtHalfScale(in[g]);
    V::storeB(p, halfToFp8NearestEvenBytes<V, kFormat>(V::floatToHalfTowardZero(jammed),
                                                       V::floatToHalfTowardZero(jammed + kHalfGroup)));
  }

  static void storeCodes(std::byte* p, typename V::U codes) {
    if constexpr (kSize == 2)
      V::storeU16(p, codes);
    else
      V::storeU8(p, codes);
  }
  // Whether the ISA has an fp16 or bf16 conversion instruction for kFormat
  // (tryHardwareNearestEven).
  static constexpr bool kHasHalfConversion = requires(std::byte * p, F v) { V::tryStoreHalfNearestEven(p, v); };
  static constexpr bool kHasBf16Conversion = requires(std::byte * p, F v) { V::tryStoreBf16NearestEven(p, v); };
  static constexpr bool kHardwareNearestEven =
      (kFormat == Format::Fp16 && kHasHalfConversion) || (kFormat == Format::Bf16 && kHasBf16Conversion);
  [[gnu::noinline]] static void encodeNearestEvenOutOfLine(std::byte* p, F value) {
    storeCodes(p, encode<V, kFormat, false>(value, V::splatU(0)));
  }
  // The ISA's conversion instruction, where it gives the encoder's bits for
  // this vector (only where kHardwareNearestEven).
  static bool tryHardwareNearestEven(std::byte* p, F value) {
    if constexpr (kFormat == Format::Fp16)
      return V::tryStoreHalfNearestEven(p, value);
    else
      return V::tryStoreBf16NearestEven(p, value);
  }
  // Stochastic rounding through fp16 where every lane's magnitude, at fp16's
  // scale, is 0 or lies in [2^-14, the format's largest finite]: the random bits added
  // below the format's last kept bit, then the hardware's truncation to fp16
  // (and for FP8 the drop of fp16's extra bits) give the generic encoder's
  // bits, carries included (zeros truncate to zero). Declines (false) for
  // blocks with subnormals, overflow or NaN.
  template <size_t kVectors>
  static bool tryStochasticViaHalf(std::byte* p, const F* in, const typename V::U* random) {
    constexpr uint32_t kDropped = 23 - spec(kFormat).mantissaBits;
    constexpr uint32_t kSmallestNormal = 0x38800000u;  // 2^-14
    // 65504, 57344, 448 x 2^-8: adding the random bits cannot overflow.
    constexpr uint32_t kLargestFinite = kFormat == Format::Fp16   ? 0x477FE000u
                                        : kFormat == Format::E5m2 ? 0x47600000u
                                                                  : 0x3FE00000u;
    // Zero or at least 2^-14: magnitude - 1 (0 wraps) above 2^-14's bits -
    // 2. The block's least and largest magnitudes decide, in one test.
    typename V::U leastMinusOne = V::splatU(UINT32_MAX), largest = V::splatU(0);
    F adjusted[kVectors];
    for (size_t v = 0; v < kVectors; ++v) {
      const F value = kFormat == Format::E4m3 && !kHalfScaled ? V::mul(in[v], V::splatF(0x1p-8f)) : in[v];
      const auto bits = V::asU(value);
      const auto magnitude = V::bitAnd(bits, V::splatU(~kFp32SignBit));
      leastMinusOne = V::minU(leastMinusOne, V::sub(magnitude, V::splatU(1)));
      largest = V::maxU(largest, magnitude);
      adjusted[v] = V::asF(V::add(bits, V::template shr<32 - kDropped>(random[v])));
    }
    if (!V::all(V::lessThanUnsigned(V::splatU(kSmallestNormal - 2), leastMinusOne),
                V::lessThanUnsigned(largest, V::splatU(kLargestFinite + 1))))
      return false;
    for (size_t v = 0; v < kVectors; v += kGroup) {
      std::byte* out = p + v * V::kLanes * kSize;
      if constexpr (kFormat == Format::Fp16) {
        V::storeHalfTowardZero(out, adjusted[v]);
      } else if constexpr (kBytes) {
        V::storeB(out, halfToFp8TowardZeroBytes<V, kFormat>(V::floatToHalfTowardZero(adjusted + v),
                                                            V::floatToHalfTowardZero(adjusted + v + kHalfGroup)));
      } else {
        V::storeHAsU8(out, halfToFp8TowardZero<V, kFormat>(V::floatToHalfTowardZero(adjusted + v)));
      }
    }
    return true;
  }
  // FP8 nearest even truncates to fp16 with the hardware after jamming a
  // sticky bit: FP32 bit 21 - M (one below FP8's rounding bit) is set when
  // any bit below it is. fp16 keeps that bit wherever FP8's result can be
  // nonzero (FP8 drops at most 6 more bits than fp16 there, subnormals
  // included), so the fp16 bits below FP8's rounding bit are zero exactly
  // when FP32's were: the nearest-even rounding to FP8 that follows is
  // exact. E4M3 is scaled by 2^-8 to line its exponent up with fp16's (see
  // fp8ToHalf).
  static F jammedAtHalfScale(F value) {
    constexpr uint32_t kJam = 1u << (21 - spec(kFormat).mantissaBits);
    const F scaled = kFormat == Format::E4m3 && !kHalfScaled ? V::mul(value, V::splatF(0x1p-8f)) : value;
    return V::asF(V::orIfAny(V::asU(scaled), V::splatU(kJam - 1), V::splatU(kJam)));
  }
};

// Integers and fp64 in their own generic vectors L (simd::VectorLanes).
template <class L>
struct ElementCodec {
  using F = typename L::F;
  static constexpr size_t kSize = sizeof(typename L::Element);
  static constexpr size_t kGroup = 1;
  static constexpr bool kRounds = false;
  static constexpr bool kComputeBound = false;

  static void load(const std::byte* p, F* out) { out[0] = L::load(p); }
  static F splat(const std::byte* p) { return F{} + simd::loadAs<typename L::Element>(p); }
  static void store(std::byte* p, const F* in) {
    F value = in[0];
    if constexpr (std::is_floating_point_v<typename L::Element>) {
      const F canonicalNaN = F{} + std::bit_cast<double>(uint64_t{0x7FF8000000000000});
      value = L::select(L::isNaN(value), canonicalNaN, value);
    }
    L::store(p, value);
  }
};

// fp64 in conversions (fp64 reductions use ElementCodec, in FP64). load()
// rounds to odd into FP32: with FP32's 13 or more spare bits over every
// narrow format, rounding that once more to nearest even is exact (and
// stochastic rounding is off by less than 2^-13 ulp). store() widens exactly.
template <class V>
struct Fp64Codec {
  using F = typename V::F;
  static constexpr size_t kSize = 8;
  static constexpr size_t kGroup = 1;
  static constexpr bool kRounds = false;
  static constexpr bool kComputeBound = false;

  static void load(const std::byte* p, F* out) {
    alignas(64) float lanes[V::kLanes];
    for (size_t j = 0; j < V::kLanes; ++j) lanes[j] = roundToOdd(simd::loadAs<double>(p + j * kSize));
    out[0] = V::loadF(reinterpret_cast<const std::byte*>(lanes));
  }
  static void store(std::byte* p, const F* in) {
    alignas(64) float lanes[V::kLanes];
    V::storeF(reinterpret_cast<std::byte*>(lanes), canonicalizeNaN<V>(in[0]));
    for (size_t j = 0; j < V::kLanes; ++j) simd::storeAs(p + j * kSize, static_cast<double>(lanes[j]));
  }

 private:
  static float roundToOdd(double value) {
    const float nearest = static_cast<float>(value);
    if (std::isnan(value) || static_cast<double>(nearest) == value) return nearest;
    uint32_t bits = std::bit_cast<uint32_t>(nearest);
    // Nearest rounded away from zero: step back toward it (infinity steps to
    // the largest finite). Then the last bit records the inexactness.
    if (std::fabs(static_cast<double>(nearest)) > std::fabs(value)) --bits;
    return std::bit_cast<float>(bits | 1);
  }
};

}  // namespace
}  // namespace trnccl::device::kernels
