// AVX-512 VBMI on top of Avx512Bf16: byte vectors B (64 bytes, one FP8 code
// each) with byte permutes, through which FP8 is decoded and encoded 64
// codes at a time (encoding.h: fp8ToFloatByBytes, halfToFp8NearestEvenBytes).
// Compile only in translation units built with the matching -m flags.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "device/kernels/simd/avx512.h"

namespace trnccl::device::kernels::simd {
namespace {

struct Avx512Vbmi : Avx512Bf16 {
  static constexpr size_t kByteLanes = 64;
  using B = __m512i;
  using MB = __mmask64;

  static B loadB(const std::byte* p) { return _mm512_loadu_si512(p); }
  static B loadB(const uint8_t* p) { return _mm512_loadu_si512(p); }
  static void storeB(std::byte* p, B v) { _mm512_storeu_si512(p, v); }
  static B splatB(uint8_t v) { return _mm512_set1_epi8(static_cast<char>(v)); }
  // table[index & 127] in every byte (vpermi2b: the two table halves).
  static B lookup128(const uint8_t* table, B index) {
    return _mm512_permutex2var_epi8(loadB(table), index, loadB(table + 64));
  }
  // Byte i is byte index[i] & 127 of (a, b): a's bytes, then b's.
  static B permute2(B a, B index, B b) { return _mm512_permutex2var_epi8(a, index, b); }
  // Byte i is table[index[i] & 63].
  static B lookup64(const uint8_t* table, B index) { return _mm512_permutexvar_epi8(index, loadB(table)); }
  static MB greaterB(B a, B b) { return _mm512_cmpgt_epu8_mask(a, b); }
  static MB notBelowB(B a, B b) { return _mm512_cmpge_epu8_mask(a, b); }
  static B addOneWhereB(MB m, B a) { return _mm512_mask_add_epi8(a, m, a, splatB(1)); }
  static B minB(B a, B b) { return _mm512_min_epu8(a, b); }
  // Signed bytes, the sum clamped to -128..127.
  static B addSaturatingB(B a, B b) { return _mm512_adds_epi8(a, b); }
  static MB lessThanB(B a, B b) { return _mm512_cmplt_epu8_mask(a, b); }
  static bool allB(MB m) { return _kortestc_mask64_u8(m, m) != 0; }
  // Each bit from a where mask has it set, from b elsewhere (vpternlogd).
  static B selectBits(B mask, B a, B b) { return _mm512_ternarylogic_epi32(mask, a, b, 0xCA); }
  static B selectB(MB m, B a, B b) { return _mm512_mask_blend_epi8(m, b, a); }
};

}  // namespace
}  // namespace trnccl::device::kernels::simd
