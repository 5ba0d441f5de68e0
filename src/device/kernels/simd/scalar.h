// The scalar "vector" (one lane): the portable path, and the reference the
// SIMD paths must match bit for bit. Its operations replicate what the x86
// vector instructions do (max/min operand order, shift counts >= 32 giving 0).
//
// What every ISA wrapper provides (this one, avx2.h, avx512.h):
//  - kLanes lanes of FP32 (F), uint32 (U) and their masks (M): loads and
//    stores (U from/to 16- and 8-bit elements), arithmetic, compares (signed
//    and unsigned), selects, shifts (by constants and per lane), bit casts,
//    orIfAny (a sticky bit);
//  - kHalfLanes 16-bit lanes (H, masks MH) for FP8 codes on their way to and
//    from fp16, with halfToFloat() filling kHalfLanes / kLanes F vectors
//    (H is U's register type: bitAnd, bitOr and bitXor serve both);
//  - optionally, hardware conversions that give the generic encoder's bits:
//    tryStoreHalfNearestEven, tryStoreBf16NearestEven (they may decline a
//    vector), floatToHalfTowardZero.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "device/kernels/simd/lanes.h"

namespace trnccl::device::kernels::simd {
namespace {

struct Scalar : ScalarLanes {
  static constexpr size_t kLanes = 1;
  static constexpr size_t kHalfLanes = 1;
  using U = uint32_t;
  using H = uint32_t;  // a 16-bit lane, kept below 2^16
  using MH = bool;
  // The U overloads below would hide these.
  using ScalarLanes::add;
  using ScalarLanes::select;

  static F loadF(const std::byte* p) { return loadAs<float>(p); }
  static void storeF(std::byte* p, F v) { storeAs(p, v); }
  static U loadU16(const std::byte* p) { return loadAs<uint16_t>(p); }
  static void storeU8(std::byte* p, U v) { storeAs(p, static_cast<uint8_t>(v)); }
  static void storeU16(std::byte* p, U v) { storeAs(p, static_cast<uint16_t>(v)); }

  static U splatU(uint32_t v) { return v; }
  static U iota() { return 0; }
  static F asF(U v) { return std::bit_cast<float>(v); }
  static U asU(F v) { return std::bit_cast<uint32_t>(v); }

  static U add(U a, U b) { return a + b; }
  static U sub(U a, U b) { return a - b; }
  static U mullo(U a, U b) { return a * b; }
  static U bitAnd(U a, U b) { return a & b; }
  static U bitOr(U a, U b) { return a | b; }
  static U bitXor(U a, U b) { return a ^ b; }
  template <int kCount>
  static U shl(U a) {
    return a << kCount;
  }
  template <int kCount>
  static U shr(U a) {
    return a >> kCount;
  }
  static U shlv(U a, U count) { return count < 32 ? a << count : 0; }
  static U shrv(U a, U count) { return count < 32 ? a >> count : 0; }
  static U minU(U a, U b) { return a < b ? a : b; }
  static U maxU(U a, U b) { return a > b ? a : b; }
  static M lessThan(U a, U b) { return static_cast<int32_t>(a) < static_cast<int32_t>(b); }
  static M lessThanUnsigned(U a, U b) { return a < b; }
  static M equal(U a, U b) { return a == b; }
  static U select(M m, U a, U b) { return m ? a : b; }
  // a | bit where a & mask is nonzero (a sticky bit).
  static U orIfAny(U a, U mask, U bit) { return (a & mask) != 0 ? a | bit : a; }

  static H loadI8ToH(const std::byte* p) { return static_cast<uint16_t>(loadAs<int8_t>(p)); }
  static void storeHAsU8(std::byte* p, H v) { storeAs(p, static_cast<uint8_t>(v)); }
  static H splatH(uint16_t v) { return v; }
  static H addH(H a, H b) { return (a + b) & 0xFFFFu; }
  template <int kCount>
  static H shlH(H a) {
    return (a << kCount) & 0xFFFFu;
  }
  template <int kCount>
  static H shrH(H a) {
    return a >> kCount;
  }
  static H minH(H a, H b) { return a < b ? a : b; }
  static MH equalH(H a, H b) { return a == b; }
  static MH notBelowH(H a, H b) { return a >= b; }
  // a + 1 where x has the (single) bit set.
  static H addOneIfBitH(H a, H x, H bit) { return (x & bit) != 0 ? (a + 1) & 0xFFFFu : a; }
  static H selectH(MH m, H a, H b) { return m ? a : b; }

  static void halfToFloat(H half, F* out) { out[0] = halfBitsToFloat(half); }
  static F loadHalf(const std::byte* p) { return halfBitsToFloat(loadU16(p)); }

 private:
  // Exact, in integer arithmetic (what vcvtph2ps does in hardware).
  static F halfBitsToFloat(H half) {
    const uint32_t sign = (half & 0x8000u) << 16;
    const uint32_t exponent = (half >> 10) & 0x1Fu;
    const uint32_t mantissa = half & 0x3FFu;
    if (exponent == 0x1F) return asF(sign | 0x7F800000u | (mantissa << 13));
    if (exponent != 0) return asF(sign | ((exponent + 112) << 23) | (mantissa << 13));
    // Subnormal or zero: mantissa * 2^-24 is exact and an FP32 normal.
    return asF(sign | asU(static_cast<float>(mantissa) * 0x1p-24f));
  }
};

}  // namespace
}  // namespace trnccl::device::kernels::simd
