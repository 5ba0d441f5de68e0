// What each ISA's translation unit exports: a table of kernel entry points,
// indexed by data type and operator (reduce) or by source and destination
// type (convert). dispatch.cc validates the arguments and picks the entry.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "device/kernels/kernels.h"

namespace trnccl::device::kernels {

// The per-call key of stochastic rounding's hash, derived from (seed, call).
struct RandomKey {
  uint32_t low = 0;
  uint32_t high = 0;
};

using ReduceKernel = void (*)(const ReduceArgs& args, const RandomKey& key);
using ConvertKernel = void (*)(const ConvertArgs& args, const RandomKey& key);

struct KernelTable {
  ReduceKernel reduce[trncclNumTypes][trncclNumOps] = {};
  ReduceKernel preMulSum[trncclNumTypes] = {};
  // Between two different floating types; a same-type copy is not a kernel.
  ConvertKernel convert[trncclNumTypes][trncclNumTypes] = {};
};

// A part of the types, whose kernels one translation unit per ISA compiles
// (CMakeLists.txt, kernel_part.cc.in): the reductions of the types it holds
// and the conversions whose narrower type it holds. Parts spread the kernel
// library's compile over the cores, and let an ISA that adds instructions to
// another (avx512bf16 to avx512) compile only the parts they change.
struct KernelPart {
  uint32_t types = 0;  // bit t: trncclDataType_t t

  constexpr bool holds(trncclDataType_t type) const { return (types >> type) & 1u; }
};

constexpr KernelPart kernelPartOf(std::initializer_list<trncclDataType_t> types) {
  KernelPart part;
  for (const trncclDataType_t type : types) part.types |= 1u << type;
  return part;
}

namespace parts {
inline constexpr KernelPart Integers =
    kernelPartOf({trncclInt8, trncclUint8, trncclInt32, trncclUint32, trncclInt64, trncclUint64});
inline constexpr KernelPart Fp64 = kernelPartOf({trncclFloat64});
inline constexpr KernelPart Fp32 = kernelPartOf({trncclFloat32});
inline constexpr KernelPart Fp16 = kernelPartOf({trncclFloat16});
inline constexpr KernelPart Bf16 = kernelPartOf({trncclBfloat16});
inline constexpr KernelPart E4m3 = kernelPartOf({trncclFloat8e4m3});
inline constexpr KernelPart E5m2 = kernelPartOf({trncclFloat8e5m2});
}  // namespace parts

}  // namespace trnccl::device::kernels
