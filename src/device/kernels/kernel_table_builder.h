// Fills an ISA's KernelTable with the kernel templates instantiated for its
// wrapper V. Included only by the per-ISA translation units (isa_*.cc).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "device/kernels/kernel_table.h"
#include "device/kernels/kernel_templates.h"
#include "device/kernels/ops.h"

namespace trnccl::device::kernels {
namespace {

// Integers and fp64 reduce in generic vectors as wide as the ISA's.
template <class V, class T, template <class> class Op>
constexpr ReduceKernel elementKernel() {
  using L = simd::VectorLanes<T, std::max<size_t>(16, V::kLanes * sizeof(float))>;
  return &reduceKernel<L, ElementCodec<L>, Op<L>>;
}

template <class V, template <class> class Op>
constexpr ReduceKernel reduceEntry(trncclDataType_t type) {
  switch (type) {
    case trncclInt8:
      return elementKernel<V, int8_t, Op>();
    case trncclUint8:
      return elementKernel<V, uint8_t, Op>();
    case trncclInt32:
      return elementKernel<V, int32_t, Op>();
    case trncclUint32:
      return elementKernel<V, uint32_t, Op>();
    case trncclInt64:
      return elementKernel<V, int64_t, Op>();
    case trncclUint64:
      return elementKernel<V, uint64_t, Op>();
    case trncclFloat64:
      return elementKernel<V, double, Op>();
    case trncclFloat32:
      return &reduceKernel<V, Fp32Codec<V>, Op<V>>;
    case trncclFloat16:
      return &reduceKernel<V, NarrowCodec<V, Format::Fp16>, Op<V>>;
    case trncclBfloat16:
      return &reduceKernel<V, NarrowCodec<V, Format::Bf16>, Op<V>>;
    case trncclFloat8e4m3:
      return &reduceKernel<V, NarrowCodec<V, Format::E4m3, Op<V>::kScaleInvariant>, Op<V>>;
    case trncclFloat8e5m2:
      return &reduceKernel<V, NarrowCodec<V, Format::E5m2>, Op<V>>;
    default:
      return nullptr;
  }
}

template <class V, class Src, class Dst>
constexpr ConvertKernel convertKernelBetween() {
  if constexpr (std::is_same_v<Src, Dst>)
    return nullptr;  // a copy, not a kernel
  else if constexpr (std::is_same_v<Src, Fp64Codec<V>> && std::is_same_v<Dst, Fp32Codec<V>>)
    return &convertDoubleToFloat<V>;  // rounds once; the round-to-odd route is for narrow formats
  else
    return &convertKernel<V, Src, Dst>;
}

template <class V, class Src>
constexpr ConvertKernel convertKernelFrom(trncclDataType_t to) {
  switch (to) {
    case trncclFloat16:
      return convertKernelBetween<V, Src, NarrowCodec<V, Format::Fp16>>();
    case trncclBfloat16:
      return convertKernelBetween<V, Src, NarrowCodec<V, Format::Bf16>>();
    case trncclFloat8e4m3:
      return convertKernelBetween<V, Src, NarrowCodec<V, Format::E4m3>>();
    case trncclFloat8e5m2:
      return convertKernelBetween<V, Src, NarrowCodec<V, Format::E5m2>>();
    case trncclFloat32:
      return convertKernelBetween<V, Src, Fp32Codec<V>>();
    case trncclFloat64:
      return convertKernelBetween<V, Src, Fp64Codec<V>>();
    default:
      return nullptr;
  }
}

template <class V>
constexpr ConvertKernel convertEntry(trncclDataType_t from, trncclDataType_t to) {
  switch (from) {
    case trncclFloat16:
      return convertKernelFrom<V, NarrowCodec<V, Format::Fp16>>(to);
    case trncclBfloat16:
      return convertKernelFrom<V, NarrowCodec<V, Format::Bf16>>(to);
    case trncclFloat8e4m3:
      return convertKernelFrom<V, NarrowCodec<V, Format::E4m3>>(to);
    case trncclFloat8e5m2:
      return convertKernelFrom<V, NarrowCodec<V, Format::E5m2>>(to);
    case trncclFloat32:
      return convertKernelFrom<V, Fp32Codec<V>>(to);
    case trncclFloat64:
      return convertKernelFrom<V, Fp64Codec<V>>(to);
    default:
      return nullptr;
  }
}

template <class V>
constexpr KernelTable makeKernelTable() {
  KernelTable table;
  for (int t = 0; t < trncclNumTypes; ++t) {
    const auto type = static_cast<trncclDataType_t>(t);
    table.reduce[t][trncclSum] = reduceEntry<V, Sum>(type);
    table.reduce[t][trncclProd] = reduceEntry<V, Prod>(type);
    table.reduce[t][trncclMax] = reduceEntry<V, Max>(type);
    table.reduce[t][trncclMin] = reduceEntry<V, Min>(type);
    table.reduce[t][trncclAvg] = reduceEntry<V, Avg>(type);
    table.preMulSum[t] = reduceEntry<V, PreMulSum>(type);
    for (int to = 0; to < trncclNumTypes; ++to)
      table.convert[t][to] = convertEntry<V>(type, static_cast<trncclDataType_t>(to));
  }
  return table;
}

template <class V>
const KernelTable& kernelTableFor() {
  static constexpr KernelTable kTable = makeKernelTable<V>();
  return kTable;
}

}  // namespace
}  // namespace trnccl::device::kernels
