// Fills one part of an ISA's KernelTable with the kernel templates
// instantiated for its wrapper V. Included only by the translation units
// CMakeLists.txt makes from kernel_part.cc.in, one per (ISA, part).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "base/type_table.h"
#include "device/kernels/kernel_table.h"
#include "device/kernels/kernel_templates.h"
#include "device/kernels/ops.h"

namespace trnccl::device::kernels {
namespace {

template <trncclDataType_t kType>
struct ElementOf {};
template <>
struct ElementOf<trncclInt8> : std::type_identity<int8_t> {};
template <>
struct ElementOf<trncclUint8> : std::type_identity<uint8_t> {};
template <>
struct ElementOf<trncclInt32> : std::type_identity<int32_t> {};
template <>
struct ElementOf<trncclUint32> : std::type_identity<uint32_t> {};
template <>
struct ElementOf<trncclInt64> : std::type_identity<int64_t> {};
template <>
struct ElementOf<trncclUint64> : std::type_identity<uint64_t> {};
template <>
struct ElementOf<trncclFloat64> : std::type_identity<double> {};

// The codec of a floating type, as a conversion's side: E4M3 unscaled.
template <class V, trncclDataType_t kType>
auto floatCodec() {
  if constexpr (kType == trncclFloat16)
    return NarrowCodec<V, Format::Fp16>{};
  else if constexpr (kType == trncclBfloat16)
    return NarrowCodec<V, Format::Bf16>{};
  else if constexpr (kType == trncclFloat8e4m3)
    return NarrowCodec<V, Format::E4m3>{};
  else if constexpr (kType == trncclFloat8e5m2)
    return NarrowCodec<V, Format::E5m2>{};
  else if constexpr (kType == trncclFloat32)
    return Fp32Codec<V>{};
  else
    return Fp64Codec<V>{};
}
template <class V, trncclDataType_t kType>
using FloatCodec = decltype(floatCodec<V, kType>());

// fp32, fp16, bf16 and fp8 reduce in V's FP32 lanes; integers and fp64 in
// generic vectors as wide as V's.
template <class V, trncclDataType_t kType, template <class> class Op>
constexpr ReduceKernel reduceKernelOf() {
  if constexpr (kType == trncclFloat32 || kType == trncclFloat16 || kType == trncclBfloat16 ||
                kType == trncclFloat8e5m2) {
    return &reduceKernel<V, FloatCodec<V, kType>, Op<V>>;
  } else if constexpr (kType == trncclFloat8e4m3) {
    return &reduceKernel<V, NarrowCodec<V, Format::E4m3, Op<V>::kScaleInvariant>, Op<V>>;
  } else {
    using L = simd::VectorLanes<typename ElementOf<kType>::type, std::max<size_t>(16, V::kLanes * sizeof(float))>;
    return &reduceKernel<L, ElementCodec<L>, Op<L>>;
  }
}

template <class V, trncclDataType_t kFrom, trncclDataType_t kTo>
constexpr ConvertKernel convertKernelOf() {
  if constexpr (kFrom == trncclFloat64 && kTo == trncclFloat32)
    return &convertDoubleToFloat<V>;  // rounds once; the round-to-odd route is for narrow formats
  else
    return &convertKernel<V, FloatCodec<V, kFrom>, FloatCodec<V, kTo>>;
}

// Which part holds a conversion: the one of its narrower type, ranked by
// kNarrowFirst, since the narrower side is where an ISA's own instructions
// (hardware bf16 rounding, FP8's byte permutes) change the code.
inline constexpr trncclDataType_t kNarrowFirst[] = {trncclFloat8e4m3, trncclFloat8e5m2, trncclBfloat16,
                                                    trncclFloat16,    trncclFloat32,    trncclFloat64};

constexpr trncclDataType_t narrowerOf(trncclDataType_t a, trncclDataType_t b) {
  for (const trncclDataType_t type : kNarrowFirst)
    if (type == a || type == b) return type;
  return a;
}

template <class V, KernelPart kPart, trncclDataType_t kFrom, int... kTo>
void fillConversionsFrom(KernelTable& table, std::integer_sequence<int, kTo...>) {
  const auto fill = [&]<trncclDataType_t to>(std::integral_constant<trncclDataType_t, to>) {
    if constexpr (kTypeFacts[to].floatingPoint && to != kFrom && kPart.holds(narrowerOf(kFrom, to)))
      table.convert[kFrom][to] = convertKernelOf<V, kFrom, to>();
  };
  (fill(std::integral_constant<trncclDataType_t, static_cast<trncclDataType_t>(kTo)>{}), ...);
}

template <class V, KernelPart kPart, trncclDataType_t kType>
void fillType(KernelTable& table) {
  if constexpr (kPart.holds(kType)) {
    table.reduce[kType][trncclSum] = reduceKernelOf<V, kType, Sum>();
    table.reduce[kType][trncclProd] = reduceKernelOf<V, kType, Prod>();
    table.reduce[kType][trncclMax] = reduceKernelOf<V, kType, Max>();
    table.reduce[kType][trncclMin] = reduceKernelOf<V, kType, Min>();
    table.reduce[kType][trncclAvg] = reduceKernelOf<V, kType, Avg>();
    table.preMulSum[kType] = reduceKernelOf<V, kType, PreMulSum>();
  }
  if constexpr (kTypeFacts[kType].floatingPoint)
    fillConversionsFrom<V, kPart, kType>(table, std::make_integer_sequence<int, trncclNumTypes>{});
}

// Every reduction of a type kPart holds, and every conversion whose narrower
// type it holds.
template <class V, KernelPart kPart, int... kType>
void fillKernels(KernelTable& table, std::integer_sequence<int, kType...>) {
  (fillType<V, kPart, static_cast<trncclDataType_t>(kType)>(table), ...);
}

template <class V, KernelPart kPart>
void fillKernels(KernelTable& table) {
  fillKernels<V, kPart>(table, std::make_integer_sequence<int, trncclNumTypes>{});
}

}  // namespace
}  // namespace trnccl::device::kernels
