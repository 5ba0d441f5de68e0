// Scalar lanes: one value at a time, for the kernels written as plain loops
// that the compiler vectorises with each ISA translation unit's flags (integer
// and fp64 reductions), and the building blocks of the scalar ISA wrapper.
//
// Everything under simd/ and the kernel templates have internal linkage on
// purpose: each per-ISA translation unit compiles its own copy with its own
// -m flags, and a shared (COMDAT) copy would let the linker keep an AVX-512
// body for the scalar path.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace trnccl::kernels::simd {
namespace {

// Unaligned element access: buffers need not be aligned to their type.
template <class T>
T loadAs(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

template <class T>
void storeAs(std::byte* p, T value) {
  std::memcpy(p, &value, sizeof value);
}

// Floating-point lanes. max/min return the second operand when the
// comparison is false (equal or unordered), as x86 maxps/minps do.
template <class T>
struct ScalarLanes {
  using F = T;
  using M = bool;
  static F splatF(T value) { return value; }
  static F avgDivisor(uint64_t divisor) { return static_cast<T>(divisor); }
  static F add(F a, F b) { return a + b; }
  static F mul(F a, F b) { return a * b; }
  static F div(F a, F b) { return a / b; }
  static F max(F a, F b) { return a > b ? a : b; }
  static F min(F a, F b) { return a < b ? a : b; }
  static M isNaN(F a) { return std::isnan(a); }
  static F select(M m, F a, F b) { return m ? a : b; }
};

// Integer lanes: sum and product wrap as the C type does (computed in the
// unsigned type, so signed overflow is never undefined); avg divides the
// wrapped sum as C division does (truncating toward zero).
template <class T>
struct IntegerLanes {
  using F = T;
  using M = bool;
  using Unsigned = std::make_unsigned_t<T>;
  static F add(F a, F b) { return static_cast<T>(static_cast<Unsigned>(a) + static_cast<Unsigned>(b)); }
  static F mul(F a, F b) { return static_cast<T>(static_cast<Unsigned>(a) * static_cast<Unsigned>(b)); }
  static F max(F a, F b) { return a > b ? a : b; }
  static F min(F a, F b) { return a < b ? a : b; }
  static M isNaN(F) { return false; }
  static F select(M m, F a, F b) { return m ? a : b; }
  static uint64_t avgDivisor(uint64_t divisor) { return divisor; }
  static F div(F sum, uint64_t divisor) {
    if constexpr (std::is_unsigned_v<T>) {
      return static_cast<T>(sum / divisor);
    } else {
      constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
      if (divisor <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return static_cast<T>(static_cast<int64_t>(sum) / static_cast<int64_t>(divisor));
      // A divisor beyond int64 exceeds |sum|: the quotient truncates to 0,
      // except INT64_MIN / 2^63.
      return static_cast<int64_t>(sum) == kMin && divisor == uint64_t{1} << 63 ? T(-1) : T(0);
    }
  }
};

}  // namespace
}  // namespace trnccl::kernels::simd
