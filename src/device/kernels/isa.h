// How selectedIsa() chooses its ISA, exposed for tests.
#pragma once

#include "base/settings.h"
#include "device/kernels/kernels.h"

namespace trnccl::device::kernels {

// TRNCCL_KERNEL_ISA's declaration (its name, for messages and tests).
const settings::Setting& isaSetting();

// The best ISA this CPU runs, or the one TRNCCL_KERNEL_ISA names; computed
// afresh on every call (selectedIsa() keeps the first answer). Throws
// trnccl::Error (trncclInvalidArgument) for an unknown name or an ISA this
// CPU cannot run.
Isa chooseIsa();

}  // namespace trnccl::device::kernels
