// The kernel table compiled for one ISA: AVX2 + FMA + F16C.
// Its compile flags are set in CMakeLists.txt.
#include "device/kernels/kernel_table_builder.h"
#include "device/kernels/simd/avx2.h"

namespace trnccl::device::kernels {
const KernelTable& avx2Kernels() { return kernelTableFor<simd::Avx2>(); }
}  // namespace trnccl::device::kernels
