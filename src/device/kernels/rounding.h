// The two rounding policies a narrow-format store takes. Stochastic rounding
// draws 32 random bits per element from a counter-based hash of the element's
// global index and the call's key, so the bits depend only on (seed, call,
// index): every ISA, every lane width and every way of splitting a buffer into
// calls gives the same ones.
#pragma once

#include <cstdint>

#include "device/kernels/kernel_table.h"

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

template <class V>
struct RoundStochastically {
  static constexpr bool kStochastic = true;
  RandomKey key;

  // Random words for elements index, index + 1, ..., index + kLanes - 1:
  // hash(hash(low word ^ key.low) ^ high word ^ key.high).
  typename V::U bits(uint64_t index) const {
    using U = typename V::U;
    const U lane = V::iota();
    const U low = V::add(V::splatU(static_cast<uint32_t>(index)), lane);
    const U mixed = lowbias32<V>(V::bitXor(low, V::splatU(key.low)));
    const auto firstHigh = static_cast<uint32_t>(index >> 32);
    // Nearly always no lane's low word wraps, and the high word is one value.
    if (static_cast<uint32_t>(index) <= UINT32_MAX - (V::kLanes - 1))
      return lowbias32<V>(V::bitXor(mixed, V::splatU(firstHigh ^ key.high)));
    // A lane whose low word wrapped (low < lane, unsigned) carries into the
    // high word; flipping the sign bits makes the signed compare unsigned.
    const U flip = V::splatU(0x80000000u);
    const auto wrapped = V::lessThan(V::bitXor(low, flip), V::bitXor(lane, flip));
    const U high = V::add(V::splatU(firstHigh), V::select(wrapped, V::splatU(1), V::splatU(0)));
    return lowbias32<V>(V::bitXor(mixed, V::bitXor(high, V::splatU(key.high))));
  }
};

}  // namespace
}  // namespace trnccl::device::kernels
