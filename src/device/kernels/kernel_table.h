// What each ISA's translation unit exports: a table of kernel entry points,
// indexed by data type and operator (reduce) or by source and destination
// type (convert). dispatch.cc validates the arguments and picks the entry.
#pragma once

#include <cstdint>

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

const KernelTable& scalarKernels();
const KernelTable& avx2Kernels();
const KernelTable& avx512Kernels();
const KernelTable& avx512Bf16Kernels();
const KernelTable& avx512VbmiKernels();

}  // namespace trnccl::device::kernels
