// The kernel table compiled for one ISA: portable code: baseline x86-64 flags.
// Its compile flags are set in CMakeLists.txt.
#include "device/kernels/kernel_table_builder.h"
#include "device/kernels/simd/scalar.h"

namespace trnccl::device::kernels {
const KernelTable& scalarKernels() { return kernelTableFor<simd::Scalar>(); }
}  // namespace trnccl::device::kernels
