#include "base/datatype.h"

namespace trnccl {

size_t typeSize(trncclDataType_t t) {
  switch (t) {
    case trncclInt8:
    case trncclUint8:
    case trncclFloat8e4m3:
    case trncclFloat8e5m2:
      return 1;
    case trncclFloat16:
    case trncclBfloat16:
      return 2;
    case trncclInt32:
    case trncclUint32:
    case trncclFloat32:
      return 4;
    case trncclInt64:
    case trncclUint64:
    case trncclFloat64:
      return 8;
    default:
      return 0;
  }
}

bool isFloatType(trncclDataType_t t) {
  switch (t) {
    case trncclFloat16:
    case trncclFloat32:
    case trncclFloat64:
    case trncclBfloat16:
    case trncclFloat8e4m3:
    case trncclFloat8e5m2:
      return true;
    default:
      return false;
  }
}

const char* typeName(trncclDataType_t t) {
  switch (t) {
    case trncclInt8:
      return "int8";
    case trncclUint8:
      return "uint8";
    case trncclInt32:
      return "int32";
    case trncclUint32:
      return "uint32";
    case trncclInt64:
      return "int64";
    case trncclUint64:
      return "uint64";
    case trncclFloat16:
      return "half";
    case trncclFloat32:
      return "float";
    case trncclFloat64:
      return "double";
    case trncclBfloat16:
      return "bfloat16";
    case trncclFloat8e4m3:
      return "f8e4m3";
    case trncclFloat8e5m2:
      return "f8e5m2";
    default:
      return "unknown";
  }
}

const char* opName(trncclRedOp_t op) {
  switch (op) {
    case trncclSum:
      return "sum";
    case trncclProd:
      return "prod";
    case trncclMax:
      return "max";
    case trncclMin:
      return "min";
    case trncclAvg:
      return "avg";
    default:
      return "unknown";
  }
}

}  // namespace trnccl
