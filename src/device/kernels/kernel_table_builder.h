// Fills an ISA's KernelTable with the kernel templates instantiated for its
// wrapper V. Included only by the per-ISA translation units (isa_*.cc).
#pragma once

#include <cstdint>
#include <type_traits>

#include "device/kernels/elementwise_kernel.h"
#include "device/kernels/float_kernel.h"
#include "device/kernels/kernel_table.h"
#include "device/kernels/ops.h"

namespace trnccl::kernels {
namespace {

template <class V, template <class> class Op>
constexpr ReduceKernel reduceKernel(trncclDataType_t type) {
  switch (type) {
    case trncclInt8: return &reduceElementwise<V, int8_t, Op<simd::IntegerLanes<int8_t>>>;
    case trncclUint8: return &reduceElementwise<V, uint8_t, Op<simd::IntegerLanes<uint8_t>>>;
    case trncclInt32: return &reduceElementwise<V, int32_t, Op<simd::IntegerLanes<int32_t>>>;
    case trncclUint32: return &reduceElementwise<V, uint32_t, Op<simd::IntegerLanes<uint32_t>>>;
    case trncclInt64: return &reduceElementwise<V, int64_t, Op<simd::IntegerLanes<int64_t>>>;
    case trncclUint64: return &reduceElementwise<V, uint64_t, Op<simd::IntegerLanes<uint64_t>>>;
    case trncclFloat64: return &reduceElementwise<V, double, Op<simd::ScalarLanes<double>>>;
    case trncclFloat32: return &reduceFloat<V, Fp32Codec<V>, Op<V>>;
    case trncclFloat16: return &reduceFloat<V, NarrowCodec<V, Format::Fp16>, Op<V>>;
    case trncclBfloat16: return &reduceFloat<V, NarrowCodec<V, Format::Bf16>, Op<V>>;
    case trncclFloat8e4m3: return &reduceFloat<V, NarrowCodec<V, Format::E4m3>, Op<V>>;
    case trncclFloat8e5m2: return &reduceFloat<V, NarrowCodec<V, Format::E5m2>, Op<V>>;
    default: return nullptr;
  }
}

template <class V, class Src, class Dst>
constexpr ConvertKernel convertKernelBetween() {
  if constexpr (std::is_same_v<Src, Dst>) return nullptr;  // a copy, not a kernel
  else if constexpr (std::is_same_v<Src, Fp64Codec<V>> && std::is_same_v<Dst, Fp32Codec<V>>)
    return &convertDoubleToFloat<V>;  // rounds once; the round-to-odd route is for narrow formats
  else return &convertFloat<V, Src, Dst>;
}

template <class V, class Src>
constexpr ConvertKernel convertKernelFrom(trncclDataType_t to) {
  switch (to) {
    case trncclFloat16: return convertKernelBetween<V, Src, NarrowCodec<V, Format::Fp16>>();
    case trncclBfloat16: return convertKernelBetween<V, Src, NarrowCodec<V, Format::Bf16>>();
    case trncclFloat8e4m3: return convertKernelBetween<V, Src, NarrowCodec<V, Format::E4m3>>();
    case trncclFloat8e5m2: return convertKernelBetween<V, Src, NarrowCodec<V, Format::E5m2>>();
    case trncclFloat32: return convertKernelBetween<V, Src, Fp32Codec<V>>();
    case trncclFloat64: return convertKernelBetween<V, Src, Fp64Codec<V>>();
    default: return nullptr;
  }
}

template <class V>
constexpr ConvertKernel convertKernel(trncclDataType_t from, trncclDataType_t to) {
  switch (from) {
    case trncclFloat16: return convertKernelFrom<V, NarrowCodec<V, Format::Fp16>>(to);
    case trncclBfloat16: return convertKernelFrom<V, NarrowCodec<V, Format::Bf16>>(to);
    case trncclFloat8e4m3: return convertKernelFrom<V, NarrowCodec<V, Format::E4m3>>(to);
    case trncclFloat8e5m2: return convertKernelFrom<V, NarrowCodec<V, Format::E5m2>>(to);
    case trncclFloat32: return convertKernelFrom<V, Fp32Codec<V>>(to);
    case trncclFloat64: return convertKernelFrom<V, Fp64Codec<V>>(to);
    default: return nullptr;
  }
}

template <class V>
constexpr KernelTable makeKernelTable() {
  KernelTable table;
  for (int t = 0; t < trncclNumTypes; ++t) {
    const auto type = static_cast<trncclDataType_t>(t);
    table.reduce[t][trncclSum] = reduceKernel<V, Sum>(type);
    table.reduce[t][trncclProd] = reduceKernel<V, Prod>(type);
    table.reduce[t][trncclMax] = reduceKernel<V, Max>(type);
    table.reduce[t][trncclMin] = reduceKernel<V, Min>(type);
    table.reduce[t][trncclAvg] = reduceKernel<V, Avg>(type);
    for (int to = 0; to < trncclNumTypes; ++to)
      table.convert[t][to] = convertKernel<V>(type, static_cast<trncclDataType_t>(to));
  }
  return table;
}

template <class V>
const KernelTable& kernelTableFor() {
  static constexpr KernelTable kTable = makeKernelTable<V>();
  return kTable;
}

}  // namespace
}  // namespace trnccl::kernels
