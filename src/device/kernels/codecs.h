// How each floating type meets FP32 lanes in memory: load() decodes kLanes
// elements to FP32, store() encodes kLanes FP32 values with the rounding
// policy (element index `index` is lane 0's, for stochastic rounding). Every
// store writes NaN as the type's canonical NaN.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "device/kernels/encoding.h"
#include "device/kernels/simd/lanes.h"

namespace trnccl::kernels {
namespace {

template <class V>
struct Fp32Codec {
  using F = typename V::F;
  static constexpr size_t kSize = 4;
  static constexpr bool kRounds = false;  // FP32 results are never rounded stochastically

  static F load(const std::byte* p) { return V::loadF(p); }
  template <class Rounding>
  static void store(std::byte* p, F value, const Rounding&, uint64_t) {
    V::storeF(p, canonicalizeNaN<V>(value));
  }
};

template <class V, Format kFormat>
struct NarrowCodec {
  using F = typename V::F;
  static constexpr size_t kSize = spec(kFormat).bits() / 8;
  static constexpr bool kRounds = true;

  static F load(const std::byte* p) {
    if constexpr (kFormat == Format::Fp16) return V::loadHalf(p);
    else return decode<V, kFormat>(loadCodes(p));
  }

  template <class Rounding>
  static void store(std::byte* p, F value, const Rounding& rounding, uint64_t index) {
    if constexpr (Rounding::kStochastic) {
      storeCodes(p, encode<V, kFormat, true>(value, rounding.bits(index)));
    } else {
      if (tryHardwareNearestEven(p, value)) return;
      storeCodes(p, encode<V, kFormat, false>(value, V::splatU(0)));
    }
  }

 private:
  static typename V::U loadCodes(const std::byte* p) {
    if constexpr (kSize == 2) return V::loadU16(p);
    else return V::loadU8(p);
  }
  static void storeCodes(std::byte* p, typename V::U codes) {
    if constexpr (kSize == 2) V::storeU16(p, codes);
    else V::storeU8(p, codes);
  }
  // The ISA's conversion instruction, where it has one for this format and
  // it gives the encoder's bits for this vector.
  static bool tryHardwareNearestEven(std::byte* p, F value) {
    if constexpr (kFormat == Format::Fp16 && requires { V::tryStoreHalfNearestEven(p, value); })
      return V::tryStoreHalfNearestEven(p, value);
    else if constexpr (kFormat == Format::Bf16 && requires { V::tryStoreBf16NearestEven(p, value); })
      return V::tryStoreBf16NearestEven(p, value);
    else
      return false;
  }
};

// fp64 in conversions (fp64 reductions are elementwise, in FP64). load()
// rounds to odd into FP32: with FP32's 13 or more spare bits over every
// narrow format, rounding that once more to nearest even is exact (and
// stochastic rounding is off by less than 2^-13 ulp). store() widens exactly.
template <class V>
struct Fp64Codec {
  using F = typename V::F;
  static constexpr size_t kSize = 8;
  static constexpr bool kRounds = false;

  static F load(const std::byte* p) {
    alignas(64) float lanes[V::kLanes];
    for (size_t j = 0; j < V::kLanes; ++j) lanes[j] = roundToOdd(simd::loadAs<double>(p + j * kSize));
    return V::loadF(reinterpret_cast<const std::byte*>(lanes));
  }
  template <class Rounding>
  static void store(std::byte* p, F value, const Rounding&, uint64_t) {
    alignas(64) float lanes[V::kLanes];
    V::storeF(reinterpret_cast<std::byte*>(lanes), canonicalizeNaN<V>(value));
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
}  // namespace trnccl::kernels
