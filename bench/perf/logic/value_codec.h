#pragma once

#include <cstddef>

#include "trnccl/trnccl.h"

namespace trnccl::perf {

// Elements of any trnccl data type to and from double. Integers convert
// exactly as long as they fit; floats round to nearest even.
void encode_value(trncclDataType_t type, double value, std::byte* element);
double decode_value(trncclDataType_t type, const std::byte* element);

// The distance between representable values of a floating-point type around
// `value` (unit in the last place; the subnormal spacing near zero).
double ulp(trncclDataType_t type, double value);

// The largest N such that every integer in [0, N] is exact in the type.
double exact_integer_limit(trncclDataType_t type);

}  // namespace trnccl::perf
