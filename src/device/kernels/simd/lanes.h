// Lanes written in plain C++ that the compiler maps to each ISA translation
// unit's instructions: one float at a time (the scalar ISA wrapper), and
// generic vectors (the integer and fp64 kernels).
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

namespace trnccl::device::kernels::simd {
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

// One float at a time. max/min return the second operand when the comparison
// is false (equal or unordered), as x86 maxps/minps do.
struct ScalarLanes {
  using F = float;
  using M = bool;
  static F splatF(float value) { return value; }
  static F avgDivisor(uint64_t divisor) { return static_cast<float>(divisor); }
  static F add(F a, F b) { return a + b; }
  static F mul(F a, F b) { return a * b; }
  static F div(F a, F b) { return a / b; }
  static F max(F a, F b) { return a > b ? a : b; }
  static F min(F a, F b) { return a < b ? a : b; }
  static M isNaN(F a) { return std::isnan(a); }
  static F select(M m, F a, F b) { return m ? a : b; }
};

// kBytes of T per vector, in the compiler's generic vectors (lowered to the
// translation unit's ISA): the lanes of the integer and fp64 kernels. Integer
// sum and product wrap as the C type does (computed in the unsigned type, so
// signed overflow is never undefined); avg divides the wrapped sum as C
// division does, truncating toward zero.
template <class T, size_t kBytes>
struct VectorLanes {
  using Element = T;
  static constexpr size_t kLanes = kBytes / sizeof(T);
  using F [[gnu::vector_size(kBytes)]] = T;
  using M = decltype(F{} != F{});

  static F load(const std::byte* p) { return loadAs<F>(p); }
  static void store(std::byte* p, F v) { storeAs(p, v); }
  static F add(F a, F b) {
    if constexpr (std::is_integral_v<T>)
      return reinterpret_cast<F>(asUnsigned(a) + asUnsigned(b));
    else
      return a + b;
  }
  static F mul(F a, F b) {
    if constexpr (std::is_integral_v<T>)
      return reinterpret_cast<F>(asUnsigned(a) * asUnsigned(b));
    else
      return a * b;
  }
  static F max(F a, F b) { return a > b ? a : b; }
  static F min(F a, F b) { return a < b ? a : b; }
  static M isNaN(F a) { return a != a; }  // never, for integers
  static F select(M m, F a, F b) { return m ? a : b; }

  static auto avgDivisor(uint64_t divisor) {
    if constexpr (std::is_integral_v<T>)
      return divisor;
    else
      return F{} + static_cast<T>(divisor);
  }
  static F div(F sum, F divisor) { return sum / divisor; }
  static F div(F sum, uint64_t divisor) {
    for (size_t i = 0; i < kLanes; ++i) sum[i] = truncatingDivide(sum[i], divisor);
    return sum;
  }

 private:
  using Unsigned = std::make_unsigned_t<std::conditional_t<std::is_integral_v<T>, T, int>>;
  using UF [[gnu::vector_size(kBytes)]] = Unsigned;
  static UF asUnsigned(F v) { return reinterpret_cast<UF>(v); }

  static T truncatingDivide(T sum, uint64_t divisor) {
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
}  // namespace trnccl::device::kernels::simd
