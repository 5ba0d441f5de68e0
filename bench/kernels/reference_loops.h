// The peers the kernels are measured against, in their own translation unit
// with the project's plain flags (-O3, baseline ISA) so nothing inlines them
// into the benchmark loop.
#pragma once

#include <cstddef>

namespace trnccl::bench {

// STREAM "add": c[i] = a[i] + b[i].
void streamAdd(float* c, const float* a, const float* b, size_t count);

void copyBytes(void* dst, const void* src, size_t bytes);

}  // namespace trnccl::bench
