// Facts about the API's data types and reduction operators.
#pragma once

#include <cstddef>

#include "trnccl/trnccl.h"

namespace trnccl {

inline bool validType(int t) { return t >= 0 && t < trncclNumTypes; }
inline bool validOp(int op) { return op >= 0 && op < trncclNumOps; }

size_t typeSize(trncclDataType_t t);
bool isFloatType(trncclDataType_t t);
const char* typeName(trncclDataType_t t);  // nccl-tests spelling: "float", "bfloat16", ...
const char* opName(trncclRedOp_t op);      // "sum", "prod", "max", "min", "avg"

}  // namespace trnccl
