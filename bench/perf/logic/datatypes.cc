#include "logic/datatypes.h"

#include <array>
#include <string>

#include "logic/usage_error.h"

namespace trnccl::perf {

namespace {

struct TypeInfo {
  trncclDataType_t type;
  std::string_view name;
  std::string_view alias;  // the short name PyTorch and Neuron users write
  size_t size;
  bool floating_point;
};

// In trncclDataType_t order, so the table is indexed by the enum.
constexpr std::array<TypeInfo, trncclNumTypes> kTypes{{
    {trncclInt8, "int8", "i8", 1, false},
    {trncclUint8, "uint8", "u8", 1, false},
    {trncclInt32, "int32", "i32", 4, false},
    {trncclUint32, "uint32", "u32", 4, false},
    {trncclInt64, "int64", "i64", 8, false},
    {trncclUint64, "uint64", "u64", 8, false},
    {trncclFloat16, "half", "fp16", 2, true},
    {trncclFloat32, "float", "fp32", 4, true},
    {trncclFloat64, "double", "fp64", 8, true},
    {trncclBfloat16, "bfloat16", "bf16", 2, true},
    {trncclFloat8e4m3, "f8e4m3", "fp8e4m3", 1, true},
    {trncclFloat8e5m2, "f8e5m2", "fp8e5m2", 1, true},
}};

constexpr std::array<std::string_view, trncclNumOps> kOpNames{"sum", "prod", "max", "min", "avg"};

const TypeInfo& info(trncclDataType_t type) { return kTypes.at(static_cast<size_t>(type)); }

}  // namespace

std::string_view type_name(trncclDataType_t type) { return info(type).name; }
size_t type_size(trncclDataType_t type) { return info(type).size; }
bool is_floating_point(trncclDataType_t type) { return info(type).floating_point; }

std::vector<trncclDataType_t> parse_types(std::string_view text) {
  std::vector<trncclDataType_t> types;
  for (const TypeInfo& t : kTypes) {
    if (text == "all" || text == t.name || text == t.alias) types.push_back(t.type);
  }
  if (types.empty()) {
    std::string names;
    for (const TypeInfo& t : kTypes) names += std::string(t.name) + " (" + std::string(t.alias) + "), ";
    throw UsageError("unknown datatype '" + std::string(text) + "': use one of " + names + "all");
  }
  return types;
}

std::string_view op_name(trncclRedOp_t op) { return kOpNames.at(static_cast<size_t>(op)); }

std::vector<trncclRedOp_t> parse_ops(std::string_view text) {
  std::vector<trncclRedOp_t> ops;
  for (size_t i = 0; i < kOpNames.size(); ++i) {
    if (text == "all" || text == kOpNames[i]) ops.push_back(static_cast<trncclRedOp_t>(i));
  }
  if (ops.empty()) throw UsageError("unknown op '" + std::string(text) + "': use sum, prod, min, max, avg or all");
  return ops;
}

}  // namespace trnccl::perf
