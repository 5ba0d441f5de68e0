#include "base/datatype.h"

#include "base/type_table.h"

namespace trnccl {

size_t typeSize(trncclDataType_t t) { return validType(t) ? kTypeFacts[t].size : 0; }

bool isFloatType(trncclDataType_t t) { return validType(t) && kTypeFacts[t].floatingPoint; }

const char* typeName(trncclDataType_t t) { return validType(t) ? kTypeFacts[t].name : "unknown"; }

const char* opName(trncclRedOp_t op) { return validOp(op) ? kOpNames[op] : "unknown"; }

}  // namespace trnccl
