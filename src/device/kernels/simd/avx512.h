// AVX-512 (F, BW, DQ, VL): sixteen 32-bit lanes, with mask registers.
// Avx512Bf16 adds the hardware FP32 -> bf16 conversion (vcvtneps2bf16).
// Compile only in translation units built with the matching -m flags.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace trnccl::device::kernels::simd {
namespace {

// vpermt2w indices for Avx512::wordsOnTop: word 2j + 1 (a 32-bit lane's
// top half) picks word first + 16 * half + j.
struct WordIndex {
  alignas(64) uint16_t words[32];
};
constexpr WordIndex wordsOnTopIndex(uint16_t first, uint16_t half) {
  WordIndex index{};
  for (uint16_t j = 0; j < 16; ++j) index.words[2 * j + 1] = static_cast<uint16_t>(first + 16 * half + j);
  return index;
}

// vpermt2w indices for Avx512::storeTopHalves: word i is word 2i + 1 of
// (a, b), a 32-bit lane's top half.
constexpr WordIndex topHalvesIndex() {
  WordIndex index{};
  for (uint16_t i = 0; i < 32; ++i) index.words[i] = static_cast<uint16_t>(2 * i + 1);
  return index;
}

struct Avx512 {
  static constexpr size_t kLanes = 16;
  using F = __m512;
  using U = __m512i;
  using M = __mmask16;
  // 16-bit lanes for two F vectors' elements: FP8 codes on their way to fp16.
  static constexpr size_t kHalfLanes = 32;
  using H = __m512i;
  using MH = __mmask32;

  static F loadF(const std::byte* p) { return _mm512_loadu_ps(p); }
  static void storeF(std::byte* p, F v) { _mm512_storeu_ps(p, v); }
  static U loadU16(const std::byte* p) {
    return _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static void storeU8(std::byte* p, U v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(v)); }
  static void storeU16(std::byte* p, U v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi32_epi16(v));
  }

  static F splatF(float v) { return _mm512_set1_ps(v); }
  static F avgDivisor(uint64_t divisor) { return splatF(static_cast<float>(divisor)); }
  static F add(F a, F b) { return _mm512_add_ps(a, b); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F div(F a, F b) { return _mm512_div_ps(a, b); }
  static F max(F a, F b) { return _mm512_max_ps(a, b); }
  static F min(F a, F b) { return _mm512_min_ps(a, b); }
  static M isNaN(F a) { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
  static F select(M m, F a, F b) { return _mm512_mask_blend_ps(m, b, a); }

  static U splatU(uint32_t v) { return _mm512_set1_epi32(static_cast<int>(v)); }
  static U iota() { return _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
  static F asF(U v) { return _mm512_castsi512_ps(v); }
  static U asU(F v) { return _mm512_castps_si512(v); }

  static U add(U a, U b) { return _mm512_add_epi32(a, b); }
  static U sub(U a, U b) { return _mm512_sub_epi32(a, b); }
  static U mullo(U a, U b) { return _mm512_mullo_epi32(a, b); }
  static U bitAnd(U a, U b) { return _mm512_and_si512(a, b); }
  static U bitOr(U a, U b) { return _mm512_or_si512(a, b); }
  static U bitXor(U a, U b) { return _mm512_xor_si512(a, b); }
  template <int kCount>
  static U shl(U a) {
    return _mm512_slli_epi32(a, kCount);
  }
  template <int kCount>
  static U shr(U a) {
    return _mm512_srli_epi32(a, kCount);
  }
  static U shlv(U a, U count) { return _mm512_sllv_epi32(a, count); }
  static U shrv(U a, U count) { return _mm512_srlv_epi32(a, count); }
  static U minU(U a, U b) { return _mm512_min_epu32(a, b); }
  static U maxU(U a, U b) { return _mm512_max_epu32(a, b); }
  static M lessThan(U a, U b) { return _mm512_cmplt_epi32_mask(a, b); }
  static M equal(U a, U b) { return _mm512_cmpeq_epi32_mask(a, b); }
  static U select(M m, U a, U b) { return _mm512_mask_blend_epi32(m, b, a); }
  static U orIfAny(U a, U mask, U bit) { return _mm512_mask_or_epi32(a, _mm512_test_epi32_mask(a, mask), a, bit); }
  static M lessThanUnsigned(U a, U b) { return _mm512_cmplt_epu32_mask(a, b); }
  // Words first .. first + 31 (first 0 or 1) of a's 32 words then b's, in
  // order, into the top halves of out[0]'s and then out[1]'s 32-bit lanes,
  // zeros below (stochastic rounding's random words, rounding.h).
  static void wordsOnTop(U a, U b, uint32_t first, U* out) {
    static constexpr WordIndex kIndex[2][2] = {{wordsOnTopIndex(0, 0), wordsOnTopIndex(0, 1)},
                                               {wordsOnTopIndex(1, 0), wordsOnTopIndex(1, 1)}};
    constexpr __mmask32 kTopHalves = 0xAAAAAAAAu;
    for (size_t half = 0; half < 2; ++half)
      out[half] = _mm512_maskz_permutex2var_epi16(kTopHalves, a, _mm512_load_si512(kIndex[first][half].words), b);
  }
  // The top 16 bits of a's lanes, then b's, as 32 words.
  static H topHalves(U a, U b) {
    static constexpr WordIndex kIndex = topHalvesIndex();
    return _mm512_permutex2var_epi16(a, _mm512_load_si512(kIndex.words), b);
  }
  static void storeTopHalves(std::byte* p, U a, U b) { _mm512_storeu_si512(p, topHalves(a, b)); }
  static bool all(M m) { return m == 0xFFFF; }
  static bool all(M m, M n) { return (m & n) == 0xFFFF; }

  static H loadI8ToH(const std::byte* p) {
    return _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static void storeHAsU8(std::byte* p, H v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi16_epi8(v));
  }
  static H splatH(uint16_t v) { return _mm512_set1_epi16(static_cast<short>(v)); }
  static H addH(H a, H b) { return _mm512_add_epi16(a, b); }
  template <int kCount>
  static H shlH(H a) {
    return _mm512_slli_epi16(a, kCount);
  }
  template <int kCount>
  static H shrH(H a) {
    return _mm512_srli_epi16(a, kCount);
  }
  static H minH(H a, H b) { return _mm512_min_epu16(a, b); }
  static MH equalH(H a, H b) { return _mm512_cmpeq_epi16_mask(a, b); }
  static MH notBelowH(H a, H b) { return _mm512_cmpge_epu16_mask(a, b); }
  static H addOneIfBitH(H a, H x, H bit) {
    return _mm512_mask_add_epi16(a, _mm512_test_epi16_mask(x, bit), a, splatH(1));
  }
  static H selectH(MH m, H a, H b) { return _mm512_mask_blend_epi16(m, b, a); }

  static void halfToFloat(H half, F* out) {
    out[0] = _mm512_cvtph_ps(_mm512_castsi512_si256(half));
    out[1] = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(half, 1));
  }
  static H floatToHalfTowardZero(const F* in) {
    constexpr int kTowardZero = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtps_ph(in[0], kTowardZero)),
                              _mm512_cvtps_ph(in[1], kTowardZero), 1);
  }
  static F loadHalf(const std::byte* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static void storeHalfTowardZero(std::byte* p, F v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtps_ph(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
  }
  // Hardware RNE to fp16; declines (false) when a lane is NaN, whose payload
  // the hardware would keep.
  static bool tryStoreHalfNearestEven(std::byte* p, F v) {
    if (isNaN(v) != 0) return false;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                        _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    return true;
  }
};

struct Avx512Bf16 : Avx512 {
  // Hardware RNE to bf16; declines (false) when a lane is NaN (payload kept)
  // or an FP32 denormal (which vcvtneps2bf16 flushes to zero).
  static bool tryStoreBf16NearestEven(std::byte* p, F v) {
    constexpr int kQuietNaN = 0x01, kDenormal = 0x20, kSignalingNaN = 0x80;
    if (_mm512_fpclass_ps_mask(v, kQuietNaN | kDenormal | kSignalingNaN) != 0) return false;
    const __m256bh words = _mm512_cvtneps_pbh(v);
    std::memcpy(p, &words, sizeof words);
    return true;
  }
};

}  // namespace
}  // namespace trnccl::device::kernels::simd
