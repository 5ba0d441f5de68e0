#pragma once

#include <cstddef>

#include "logic/expected_output.h"
#include "logic/pattern.h"

namespace trnccl::perf {

// Writes rank `rank`'s input pattern as `count` elements of spec.type.
void fill_input(const PatternSpec& spec, int rank, std::byte* buffer, size_t count);

// The number of elements of `output` (of `type`) that are not what the
// collective must produce; a NaN is always wrong.
size_t count_wrong(const ExpectedOutput& expected, trncclDataType_t type, const std::byte* output);

}  // namespace trnccl::perf
