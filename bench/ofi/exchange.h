// One bidirectional exchange between the two ranks: SIZE bytes each way, cut
// into chunks with a window of operations in flight per direction.
#pragma once

#include <cstddef>

#include "raw_endpoint.h"

namespace trnccl::ofi_bench {

void exchange(RawEndpoint& endpoint, const char* out, char* in, size_t bytes, size_t chunkBytes, int window);

}  // namespace trnccl::ofi_bench
