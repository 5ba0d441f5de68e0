// The kernel table compiled for one ISA: AVX-512 plus AVX512_BF16's hardware bf16 rounding.
// Its compile flags are set in CMakeLists.txt.
#include "device/kernels/kernel_table_builder.h"
#include "device/kernels/simd/avx512.h"

namespace trnccl::device::kernels {
const KernelTable& avx512Bf16Kernels() { return kernelTableFor<simd::Avx512Bf16>(); }
}  // namespace trnccl::device::kernels
