// AVX2 + FMA + F16C: eight 32-bit lanes. Masks are all-ones/all-zeros lanes.
// Compile only in a translation unit built with -mavx2 -mfma -mf16c.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace trnccl::device::kernels::simd {
namespace {

struct Avx2 {
  static constexpr size_t kLanes = 8;
  using F = __m256;
  using U = __m256i;
  using M = __m256i;
  // 16-bit lanes for two F vectors' elements: FP8 codes on their way to fp16.
  static constexpr size_t kHalfLanes = 16;
  using H = __m256i;
  using MH = __m256i;

  static F loadF(const std::byte* p) { return _mm256_loadu_ps(reinterpret_cast<const float*>(p)); }
  static void storeF(std::byte* p, F v) { _mm256_storeu_ps(reinterpret_cast<float*>(p), v); }
  static U loadU16(const std::byte* p) {
    return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static void storeU8(std::byte* p, U v) {
    const __m128i words = packWords(v);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packus_epi16(words, words));
  }
  static void storeU16(std::byte* p, U v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), packWords(v)); }

  static F splatF(float v) { return _mm256_set1_ps(v); }
  static F avgDivisor(uint64_t divisor) { return splatF(static_cast<float>(divisor)); }
  static F add(F a, F b) { return _mm256_add_ps(a, b); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F div(F a, F b) { return _mm256_div_ps(a, b); }
  static F max(F a, F b) { return _mm256_max_ps(a, b); }
  static F min(F a, F b) { return _mm256_min_ps(a, b); }
  static M isNaN(F a) { return _mm256_castps_si256(_mm256_cmp_ps(a, a, _CMP_UNORD_Q)); }
  static F select(M m, F a, F b) { return _mm256_blendv_ps(b, a, _mm256_castsi256_ps(m)); }

  static U splatU(uint32_t v) { return _mm256_set1_epi32(static_cast<int>(v)); }
  static U iota() { return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
  static F asF(U v) { return _mm256_castsi256_ps(v); }
  static U asU(F v) { return _mm256_castps_si256(v); }

  static U add(U a, U b) { return _mm256_add_epi32(a, b); }
  static U sub(U a, U b) { return _mm256_sub_epi32(a, b); }
  static U mullo(U a, U b) { return _mm256_mullo_epi32(a, b); }
  static U bitAnd(U a, U b) { return _mm256_and_si256(a, b); }
  static U bitOr(U a, U b) { return _mm256_or_si256(a, b); }
  static U bitXor(U a, U b) { return _mm256_xor_si256(a, b); }
  template <int kCount>
  static U shl(U a) {
    return _mm256_slli_epi32(a, kCount);
  }
  template <int kCount>
  static U shr(U a) {
    return _mm256_srli_epi32(a, kCount);
  }
  static U shlv(U a, U count) { return _mm256_sllv_epi32(a, count); }
  static U shrv(U a, U count) { return _mm256_srlv_epi32(a, count); }
  static U minU(U a, U b) { return _mm256_min_epu32(a, b); }
  static U maxU(U a, U b) { return _mm256_max_epu32(a, b); }
  static M lessThan(U a, U b) { return _mm256_cmpgt_epi32(b, a); }
  static M equal(U a, U b) { return _mm256_cmpeq_epi32(a, b); }
  static U select(M m, U a, U b) { return _mm256_blendv_epi8(b, a, m); }
  static U orIfAny(U a, U mask, U bit) { return select(equal(bitAnd(a, mask), splatU(0)), a, bitOr(a, bit)); }
  // Flipping the sign bits makes the signed compare unsigned.
  static M lessThanUnsigned(U a, U b) {
    const U flip = splatU(0x80000000u);
    return lessThan(bitXor(a, flip), bitXor(b, flip));
  }
  static bool all(M m) { return _mm256_movemask_epi8(m) == -1; }
  static bool all(M m, M n) { return all(_mm256_and_si256(m, n)); }

  static H loadI8ToH(const std::byte* p) {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static void storeHAsU8(std::byte* p, H v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                     _mm_packus_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)));
  }
  static H splatH(uint16_t v) { return _mm256_set1_epi16(static_cast<short>(v)); }
  static H addH(H a, H b) { return _mm256_add_epi16(a, b); }
  template <int kCount>
  static H shlH(H a) {
    return _mm256_slli_epi16(a, kCount);
  }
  template <int kCount>
  static H shrH(H a) {
    return _mm256_srli_epi16(a, kCount);
  }
  static H minH(H a, H b) { return _mm256_min_epu16(a, b); }
  static MH equalH(H a, H b) { return _mm256_cmpeq_epi16(a, b); }
  static MH notBelowH(H a, H b) { return _mm256_cmpeq_epi16(_mm256_max_epu16(a, b), a); }
  // (The compare gives -1 where the bit is set.)
  static H addOneIfBitH(H a, H x, H bit) {
    return _mm256_sub_epi16(a, _mm256_cmpeq_epi16(_mm256_and_si256(x, bit), bit));
  }
  static H selectH(MH m, H a, H b) { return _mm256_blendv_epi8(b, a, m); }

  static void halfToFloat(H half, F* out) {
    out[0] = _mm256_cvtph_ps(_mm256_castsi256_si128(half));
    out[1] = _mm256_cvtph_ps(_mm256_extracti128_si256(half, 1));
  }
  static H floatToHalfTowardZero(const F* in) {
    return _mm256_set_m128i(_mm256_cvtps_ph(in[1], _MM_FROUND_TO_ZERO), _mm256_cvtps_ph(in[0], _MM_FROUND_TO_ZERO));
  }
  static F loadHalf(const std::byte* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static void storeHalfTowardZero(std::byte* p, F v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_ZERO));
  }
  // Hardware RNE to fp16; declines (false) when a lane is NaN, whose payload
  // the hardware would keep.
  static bool tryStoreHalfNearestEven(std::byte* p, F v) {
    if (any(isNaN(v))) return false;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    return true;
  }

 private:
  static bool any(M m) { return !_mm256_testz_si256(m, m); }
  // Lanes holding values below 2^16 to eight 16-bit words.
  static __m128i packWords(U v) { return _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)); }
};

}  // namespace
}  // namespace trnccl::device::kernels::simd
