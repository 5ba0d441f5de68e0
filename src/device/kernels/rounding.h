// The two rounding policies a narrow-format store takes. Stochastic rounding
// draws 16 random bits per element from a counter-based hash of the element's
// global index and the call's key, one lowbias32 per pair of elements, so
// the bits depend only on (seed, call, index): every ISA, every lane width
// and every way of splitting a buffer into calls gives the same ones.
//
// Element i's bits are 16-bit half (i & 1) (the low half for even i) of
//   lowbias32(low(i >> 1) ^ salt(high(i >> 1))),
//   salt(h) = lowbias32(h ^ key.high) ^ key.low,
// where low/high are a 64-bit number's 32-bit halves. An encoder gets them
// as a 32-bit word with the 16 bits on top and zeros below; a rounding that
// drops s bits adds the word's top s bits (word >> (32 - s)) below the kept
// ones. 16 bits are exact for bf16 and fp16's normal range, and leave a bias
// below 2^-16 ulp where more bits are dropped (FP8, subnormals).
#pragma once

#include <cstddef>
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

inline uint32_t saltOf(uint32_t high, const RandomKey& key) {
  return lowbias32<simd::Scalar>(high ^ key.high) ^ key.low;
}

// The random word of element `index` (the definition above, one element).
inline uint32_t randomWordOf(uint64_t index, const RandomKey& key) {
  const uint64_t pair = index >> 1;
  const uint32_t hash =
      lowbias32<simd::Scalar>(static_cast<uint32_t>(pair) ^ saltOf(static_cast<uint32_t>(pair >> 32), key));
  return index & 1 ? hash & 0xFFFF0000u : hash << 16;
}

template <class V>
struct RoundStochastically {
  static constexpr bool kStochastic = true;
  using Word = typename V::U;

  // A call of fewer than 2^33 elements spans at most two pairs' high words:
  // their salts are computed once per call, not per block.
  RoundStochastically(const RandomKey& key, uint64_t firstIndex)
      : key_(key),
        firstHigh_(static_cast<uint32_t>(firstIndex >> 33)),
        salts_{saltOf(firstHigh_, key), saltOf(firstHigh_ + 1, key)} {}

  // The random words of elements index .. index + kVectors * kLanes - 1,
  // kLanes per vector.
  template <size_t kVectors>
  void words(uint64_t index, Word* out) const {
    const uint64_t firstPair = index >> 1, lastPair = (index + kVectors * V::kLanes - 1) >> 1;
    const auto high = static_cast<uint32_t>(firstPair >> 32);
    if (high != static_cast<uint32_t>(lastPair >> 32)) return eachElement<kVectors>(index, out);
    const uint32_t salt = saltFor(high);
    if constexpr (kVectors % 2 == 0 && requires(Word w) { V::wordsOnTop(w, w, 0u, out); }) {
      pairsAtOnce<kVectors>(index, salt, out);
    } else {
      for (size_t v = 0; v < kVectors; ++v) out[v] = oneHashPerElement(index + v * V::kLanes, salt);
    }
  }

 private:
  // One hash per vector of pairs, 2 * kLanes elements: lane j hashes pair
  // index / 2 + j, and a word permute hands each element its half, on top
  // (see wordsOnTop). An odd index starts at the high half of its pair, so
  // the last element's pair is one beyond the last vector's: hashed alone.
  template <size_t kVectors>
  void pairsAtOnce(uint64_t index, uint32_t salt, Word* out) const {
    constexpr size_t kHashes = kVectors / 2;
    const auto firstPairLow = static_cast<uint32_t>(index >> 1);
    Word hashes[kHashes + 1];
    for (size_t h = 0; h < kHashes; ++h)
      hashes[h] = lowbias32<V>(V::bitXor(V::add(V::splatU(firstPairLow + h * V::kLanes), V::iota()), V::splatU(salt)));
    const auto odd = static_cast<uint32_t>(index & 1);
    hashes[kHashes] = odd ? V::splatU(lowbias32<simd::Scalar>((firstPairLow + kHashes * V::kLanes) ^ salt)) : hashes[0];
    for (size_t h = 0; h < kHashes; ++h) V::wordsOnTop(hashes[h], hashes[h + 1], odd, out + 2 * h);
  }

  // The definition lane by lane, for lanes whose pairs share the high word
  // whose salt is `salt`.
  Word oneHashPerElement(uint64_t index, uint32_t salt) const {
    // Lane j's element is index + j: its pair is index / 2 + (parity + j) / 2.
    const Word fromFirst = V::add(V::iota(), V::splatU(static_cast<uint32_t>(index & 1)));
    const Word pairLow = V::add(V::splatU(static_cast<uint32_t>(index >> 1)), V::template shr<1>(fromFirst));
    const Word hash = lowbias32<V>(V::bitXor(pairLow, V::splatU(salt)));
    const auto odd = V::equal(V::bitAnd(fromFirst, V::splatU(1)), V::splatU(1));
    return V::select(odd, V::bitAnd(hash, V::splatU(0xFFFF0000u)), V::template shl<16>(hash));
  }

  // Pairs' high word changes inside the block (once in 2^33 elements).
  template <size_t kVectors>
  void eachElement(uint64_t index, Word* out) const {
    for (size_t v = 0; v < kVectors; ++v) {
      alignas(64) uint32_t lanes[V::kLanes];
      for (size_t j = 0; j < V::kLanes; ++j) lanes[j] = randomWordOf(index + v * V::kLanes + j, key_);
      out[v] = V::asU(V::loadF(reinterpret_cast<const std::byte*>(lanes)));
    }
  }

  uint32_t saltFor(uint32_t high) const {
    if (high == firstHigh_) return salts_[0];
    return high == firstHigh_ + 1 ? salts_[1] : saltOf(high, key_);
  }

  RandomKey key_;
  uint32_t firstHigh_;
  uint32_t salts_[2];
};

}  // namespace
}  // namespace trnccl::device::kernels
