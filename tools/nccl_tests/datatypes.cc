#include "nccl_tests/datatypes.h"

#include <array>
#include <string>

#include "base/type_table.h"
#include "cli/usage_error.h"

namespace trnccl::perf {

namespace {

const TypeFacts& info(trncclDataType_t type) { return kTypeFacts.at(static_cast<size_t>(type)); }

}  // namespace

std::string_view type_name(trncclDataType_t type) { return info(type).name; }
size_t type_size(trncclDataType_t type) { return info(type).size; }
bool is_floating_point(trncclDataType_t type) { return info(type).floatingPoint; }

std::vector<trncclDataType_t> parse_types(std::string_view text) {
  std::vector<trncclDataType_t> types;
  for (const TypeFacts& t : kTypeFacts) {
    if (text == "all" || text == t.name || text == t.alias) types.push_back(t.type);
  }
  if (types.empty()) {
    std::string names;
    for (const TypeFacts& t : kTypeFacts) names += std::string(t.name) + " (" + std::string(t.alias) + "), ";
    throw cli::UsageError("unknown datatype '" + std::string(text) + "': use one of " + names + "all");
  }
  return types;
}

std::string_view op_name(trncclRedOp_t op) { return kOpNames.at(static_cast<size_t>(op)); }

std::vector<trncclRedOp_t> parse_ops(std::string_view text) {
  std::vector<trncclRedOp_t> ops;
  for (size_t i = 0; i < kOpNames.size(); ++i) {
    if (text == "all" || text == kOpNames[i]) ops.push_back(static_cast<trncclRedOp_t>(i));
  }
  if (ops.empty()) throw cli::UsageError("unknown op '" + std::string(text) + "': use sum, prod, min, max, avg or all");
  return ops;
}

}  // namespace trnccl::perf
