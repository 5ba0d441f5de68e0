// The one table of the API's data types and reduction operators: sizes and
// names (nccl-tests' spelling, and the short alias PyTorch and Neuron users
// write). Header-only, so tools that link only the public library (trnccl-perf)
// read the same table.
#pragma once

#include <array>
#include <cstddef>

#include "trnccl/trnccl.h"

namespace trnccl {

struct TypeFacts {
  trncclDataType_t type;
  const char* name;   // "float", "bfloat16", "f8e4m3"
  const char* alias;  // "fp32", "bf16", "fp8e4m3"
  size_t size;
  bool floatingPoint;
};

// In trncclDataType_t order: indexed by the enum.
inline constexpr std::array<TypeFacts, trncclNumTypes> kTypeFacts{{
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

// In trncclRedOp_t order.
inline constexpr std::array<const char*, trncclNumOps> kOpNames{"sum", "prod", "max", "min", "avg"};

constexpr bool typeTableInEnumOrder() {
  for (size_t i = 0; i < kTypeFacts.size(); ++i)
    if (kTypeFacts[i].type != static_cast<trncclDataType_t>(i)) return false;
  return true;
}
static_assert(typeTableInEnumOrder(), "kTypeFacts must follow trncclDataType_t");
static_assert(trncclSum == 0 && trncclProd == 1 && trncclMax == 2 && trncclMin == 3 && trncclAvg == 4,
              "kOpNames must follow trncclRedOp_t");

}  // namespace trnccl
