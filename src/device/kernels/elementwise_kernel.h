// Integer and fp64 reductions and the fp64 -> fp32 conversion: plain loops
// over scalar lanes that the compiler vectorises with each ISA translation
// unit's flags. V is unused but for making each ISA's instantiation its own.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "device/kernels/encoding.h"
#include "device/kernels/kernel_table.h"
#include "device/kernels/simd/lanes.h"

namespace trnccl::kernels {
namespace {

template <class T>
T canonicalizeElementNaN(T value) {
  if constexpr (std::is_same_v<T, double>) {
    return std::isnan(value) ? std::bit_cast<double>(uint64_t{0x7FF8000000000000}) : value;
  } else {
    return value;
  }
}

template <class V, class T, class Op>
void reduceElementwise(const ReduceArgs& args, const RandomKey&) {
  // Blocks small enough for the accumulators to stay in L1 between sources.
  constexpr size_t kBlock = 1024 / sizeof(T);
  const Op op(args.avgDivisor);
  auto* dst = static_cast<std::byte*>(args.dst);
  const auto source = [&](int k) { return static_cast<const std::byte*>(args.srcs[k]); };
  // Called with n == kBlock (a constant once inlined) or the tail's length.
  const auto reduceRun = [&](size_t first, size_t n) {
    T acc[kBlock];
    const std::byte* src0 = source(0) + first * sizeof(T);
    for (size_t j = 0; j < n; ++j) acc[j] = simd::loadAs<T>(src0 + j * sizeof(T));
    for (int k = 1; k < args.nsrcs; ++k) {
      const std::byte* src = source(k) + first * sizeof(T);
      for (size_t j = 0; j < n; ++j) acc[j] = op.combine(acc[j], simd::loadAs<T>(src + j * sizeof(T)));
    }
    std::byte* out = dst + first * sizeof(T);
    for (size_t j = 0; j < n; ++j) simd::storeAs(out + j * sizeof(T), canonicalizeElementNaN(op.finish(acc[j])));
  };
  size_t i = 0;
  for (; i + kBlock <= args.count; i += kBlock) reduceRun(i, kBlock);
  if (i < args.count) reduceRun(i, args.count - i);
}

// Rounds once, to nearest even (fp32 results are never rounded stochastically).
template <class V>
void convertDoubleToFloat(const ConvertArgs& args, const RandomKey&) {
  const auto* src = static_cast<const std::byte*>(args.src);
  auto* dst = static_cast<std::byte*>(args.dst);
  for (size_t i = 0; i < args.count; ++i) {
    const double value = simd::loadAs<double>(src + i * sizeof(double));
    const float rounded = std::isnan(value) ? std::bit_cast<float>(kFp32CanonicalNaN)
                                            : static_cast<float>(value);
    simd::storeAs(dst + i * sizeof(float), rounded);
  }
}

}  // namespace
}  // namespace trnccl::kernels
