// The kernel table compiled for one ISA: AVX-512 F/BW/DQ/VL, bf16 rounding in integer operations.
// Its compile flags are set in CMakeLists.txt.
#include "device/kernels/kernel_table_builder.h"
#include "device/kernels/simd/avx512.h"

namespace trnccl::device::kernels {
const KernelTable& avx512Kernels() { return kernelTableFor<simd::Avx512>(); }
}  // namespace trnccl::device::kernels
