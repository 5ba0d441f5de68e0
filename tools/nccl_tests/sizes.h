#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace trnccl::perf {

// A byte count as nccl-tests reads it: digits with an optional K, M or G
// suffix (binary units, either case). Throws UsageError on anything else.
size_t parse_size(std::string_view text);

// The message sizes of a run, as nccl-tests sweeps them: from min_bytes,
// multiplying by step_factor when it is above 1 and otherwise adding
// step_bytes, while the size stays <= max_bytes. Throws UsageError when the
// sweep is empty or would never end.
std::vector<size_t> size_sweep(size_t min_bytes, size_t max_bytes, size_t step_factor, size_t step_bytes);

}  // namespace trnccl::perf
