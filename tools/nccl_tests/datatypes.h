#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "trnccl/trnccl.h"

namespace trnccl::perf {

// Data types and reduction operations under the names nccl-tests uses for
// -d and -o (and prints in the type and redop columns).

std::string_view type_name(trncclDataType_t type);
size_t type_size(trncclDataType_t type);
bool is_floating_point(trncclDataType_t type);
// "all" or one type name; throws UsageError otherwise.
std::vector<trncclDataType_t> parse_types(std::string_view text);

std::string_view op_name(trncclRedOp_t op);
// "all" or one op name; throws UsageError otherwise.
std::vector<trncclRedOp_t> parse_ops(std::string_view text);

}  // namespace trnccl::perf
