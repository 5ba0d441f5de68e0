// The two rounding policies a narrow-format store takes. Stochastic rounding
// draws 32 random bits per element from a counter-based hash of the element's
// global index and the call's key (one lowbias32 per element), so the bits
// depend only on (seed, call, index): every ISA, every lane width and every
// way of splitting a buffer into calls gives the same ones.
#pragma once

#include <cstdint>

#include "device/kernels/kernel_table.h"
#include "device/kernels/simd/scalar.h"

namespace trnccl::device::kernels {
namespace {

struct RoundNearestEven {
  static constexpr bool kStochastic = false;
};

// lowbias32 (Chris Wellons' hash-prospector): a bijective 32-bit mix.
template <class V>
typename V::U lowbias32(typename V::U x) {
  x = V::bitXor(x, V::template shr<16>(x));
  x = V::mullo(x, V::splatU(0x7feb352du));
  x = V::bitXor(x, V::template shr<15>(x));
  x = V::mullo(x, V::splatU(0x846ca68bu));
  return V::bitXor(x, V::template shr<16>(x));
}

// The salt of the elements whose index has high word `high`: lowbias32 of
// it and the key's high word, mixed with the key's low word.
inline uint32_t highWordSalt(uint32_t high, const RandomKey& key) {
  return lowbias32<simd::Scalar>(high ^ key.high) ^ key.low;
}

template <class V>
struct RoundStochastically {
  static constexpr bool kStochastic = true;

  // A call of fewer than 2^32 elements spans at most two high words: their
  // salts are computed once per call, not per vector.
  RoundStochastically(const RandomKey& key, uint64_t firstIndex)
      : key_(key),
        firstHigh_(static_cast<uint32_t>(firstIndex >> 32)),
        salts_{highWordSalt(firstHigh_, key), highWordSalt(firstHigh_ + 1, key)} {}

  // Random words for elements index, index + 1, ..., index + kLanes - 1:
  // lowbias32(low word ^ salt(high word)).
  typename V::U bits(uint64_t index) const {
    using U = typename V::U;
    const U low = V::add(V::splatU(static_cast<uint32_t>(index)), V::iota());
    const auto firstHigh = static_cast<uint32_t>(index >> 32);
    // Nearly always no lane's low word wraps, and the high word is one value.
    if (static_cast<uint32_t>(index) <= UINT32_MAX - (V::kLanes - 1))
      return lowbias32<V>(V::bitXor(low, V::splatU(salt(firstHigh))));
    // A lane whose low word wrapped (low < lane, unsigned) carries into the
    // high word.
    const auto wrapped = V::lessThanUnsigned(low, V::iota());
    const U high = V::add(V::splatU(firstHigh), V::select(wrapped, V::splatU(1), V::splatU(0)));
    const U salts = V::bitXor(lowbias32<V>(V::bitXor(high, V::splatU(key_.high))), V::splatU(key_.low));
    return lowbias32<V>(V::bitXor(low, salts));
  }

 private:
  uint32_t salt(uint32_t high) const {
    if (high == firstHigh_) return salts_[0];
    return high == firstHigh_ + 1 ? salts_[1] : highWordSalt(high, key_);
  }

  RandomKey key_;
  uint32_t firstHigh_;
  uint32_t salts_[2];
};

}  // namespace
}  // namespace trnccl::device::kernels
