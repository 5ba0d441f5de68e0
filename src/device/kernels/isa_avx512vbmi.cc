// The kernel table compiled for one ISA: avx512bf16 plus AVX-512 VBMI's byte
// permutes, which FP8 decodes and encodes through (simd/avx512vbmi.h).
// Its compile flags are set in CMakeLists.txt.
#include "device/kernels/kernel_table_builder.h"
#include "device/kernels/simd/avx512vbmi.h"

namespace trnccl::device::kernels {
const KernelTable& avx512VbmiKernels() { return kernelTableFor<simd::Avx512Vbmi>(); }
}  // namespace trnccl::device::kernels
