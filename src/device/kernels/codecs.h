// How each type meets the kernel's lanes in memory, kGroup vectors at a time:
// load() decodes kGroup * kLanes elements, store() encodes them rounding to
// nearest even or, with kStochastic, stochastically with the elements'
// random words (rounding.h; a word per element, one V::U per vector),
// splat() puts one element's value in every lane (exactly).
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
  template <bool kStochastic, class Word>
  static void store(std::byte* p, const F* in, const Word*) {
    V::storeF(p, canonicalizeNaN<V>(in[0]));
  }
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

  template <bool kStochastic, class Word>
  static void store(std::byte* p, const F* in, const Word* random) {
    if constexpr (!kStochastic && kBytes) {
      F jammed[kGroup];
      for (size_t g = 0; g < kGroup; ++g) jammed[g] = jammedAtHalfScale(in[g]);
      V::storeB(p, halfToFp8NearestEvenBytes<V, kFormat>(V::floatToHalfTowardZero(jammed),
                                                         V::floatToHalfTowardZero(jammed + kHalfGroup)));
    } else if constexpr (!kStochastic && kSize == 1 && requires { V::floatToHalfTowardZero(in); }) {
      F jammed[kGroup];
      for (size_t g = 0; g < kGroup; ++g) jammed[g] = jammedAtHalfScale(in[g]);
      V::storeHAsU8(p, halfToFp8NearestEven<V, kFormat>(V::floatToHalfTowardZero(jammed)));
    } else if constexpr (kStochastic && kStochasticViaHalf) {
      if (!tryStochasticViaHalf(p, in, random)) storeStochasticallyOutOfLine(p, in, random);
    } else if constexpr (kStochastic) {
      storeStochastically(p, in, random);
    } else {
      for (size_t g = 0; g < kGroup; ++g, p += V::kLanes * kSize) {
        const F value = kHalfScaled ? V::mul(in[g], V::splatF(256.0f)) : in[g];
        if (!tryHardwareNearestEven(p, value)) storeCodes(p, encode<V, kFormat, false>(value, V::splatU(0)));
      }
    }
  }

 private:
  // Whether stochastic rounding has the route through the hardware's fp16
  // conversion (tryStochasticViaHalf).
  static constexpr bool kStochasticViaHalf = kFormat != Format::Bf16 && requires(std::byte * p, const F* in) {
    V::storeHalfTowardZero(p, in[0]), V::floatToHalfTowardZero(in);
  };

  // Stochastic rounding in the generic encoder.
  template <class Word>
  static void storeStochastically(std::byte* p, const F* in, const Word* random) {
    for (size_t g = 0; g < kGroup; ++g, p += V::kLanes * kSize)
      storeCodes(p, encode<V, kFormat, true>(kHalfScaled ? V::mul(in[g], V::splatF(256.0f)) : in[g], random[g]));
  }
  // The same, for the vectors the fp16 route declines: out of line, so that
  // the loop around the common route keeps its registers (inlined, its
  // constants crowded the route's out: FP8 e4m3 2-source sums at 1 MiB
  // about 20 -> 22.5 GB/s).
  template <class Word>
  [[gnu::noinline]] static void storeStochasticallyOutOfLine(std::byte* p, const F* in, const Word* random) {
    storeStochastically(p, in, random);
  }

  static void storeCodes(std::byte* p, typename V::U codes) {
    if constexpr (kSize == 2)
      V::storeU16(p, codes);
    else
      V::storeU8(p, codes);
  }
  // The ISA's fp16 or bf16 conversion instruction, where it has one and it
  // gives the encoder's bits for this vector.
  static bool tryHardwareNearestEven(std::byte* p, F value) {
    if constexpr (kFormat == Format::Fp16 && requires { V::tryStoreHalfNearestEven(p, value); })
      return V::tryStoreHalfNearestEven(p, value);
    else if constexpr (kFormat == Format::Bf16 && requires { V::tryStoreBf16NearestEven(p, value); })
      return V::tryStoreBf16NearestEven(p, value);
    else
      return false;
  }
  // Stochastic rounding through fp16 where every lane's magnitude, at fp16's
  // scale, is 0 or lies in [2^-14, the format's largest finite]: the random bits added
  // below the format's last kept bit, then the hardware's truncation to fp16
  // (and for FP8 the drop of fp16's extra bits) give the generic encoder's
  // bits, carries included (zeros truncate to zero). Declines (false) for
  // vectors with subnormals, overflow or NaN.
  template <class Word>
  static bool tryStochasticViaHalf(std::byte* p, const F* in, const Word* random) {
    if constexpr (kStochasticViaHalf) {
      constexpr uint32_t kDropped = 23 - spec(kFormat).mantissaBits;
      constexpr uint32_t kSmallestNormal = 0x38800000u;  // 2^-14
      // 65504, 57344, 448 x 2^-8: adding the random bits cannot overflow.
      constexpr uint32_t kLargestFinite = kFormat == Format::Fp16   ? 0x477FE000u
                                          : kFormat == Format::E5m2 ? 0x47600000u
                                                                    : 0x3FE00000u;
      // Zero or at least 2^-14: magnitude - 1 (0 wraps) above 2^-14's bits -
      // 2. The group's least and largest magnitudes decide, in one test.
      typename V::U leastMinusOne = V::splatU(UINT32_MAX), largest = V::splatU(0);
      F adjusted[kGroup];
      for (size_t g = 0; g < kGroup; ++g) {
        const F value = kFormat == Format::E4m3 && !kHalfScaled ? V::mul(in[g], V::splatF(0x1p-8f)) : in[g];
        const auto bits = V::asU(value);
        const auto magnitude = V::bitAnd(bits, V::splatU(~kFp32SignBit));
        leastMinusOne = V::minU(leastMinusOne, V::sub(magnitude, V::splatU(1)));
        largest = V::maxU(largest, magnitude);
        adjusted[g] = V::asF(V::add(bits, V::template shr<32 - kDropped>(random[g])));
      }
      if (!V::all(V::lessThanUnsigned(V::splatU(kSmallestNormal - 2), leastMinusOne),
                  V::lessThanUnsigned(largest, V::splatU(kLargestFinite + 1))))
        return false;
      if constexpr (kFormat == Format::Fp16) {
        V::storeHalfTowardZero(p, adjusted[0]);
      } else if constexpr (kBytes) {
        V::storeB(p, halfToFp8TowardZeroBytes<V, kFormat>(V::floatToHalfTowardZero(adjusted),
                                                          V::floatToHalfTowardZero(adjusted + kHalfGroup)));
      } else {
        for (size_t g = 0; g < kGroup; g += kHalfGroup)
          V::storeHAsU8(p + g * V::kLanes, halfToFp8TowardZero<V, kFormat>(V::floatToHalfTowardZero(adjusted + g)));
      }
      return true;
    } else {
      return false;
    }
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
  template <bool kStochastic, class Word>
  static void store(std::byte* p, const F* in, const Word*) {
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
  template <bool kStochastic, class Word>
  static void store(std::byte* p, const F* in, const Word*) {
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
