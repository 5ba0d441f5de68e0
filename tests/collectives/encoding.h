// Reference encodings of the twelve trnccl data types, written for the tests
// and independent of the library: element load/store as raw bits, decoding of
// any bit pattern to double, exact encoding of representable values, and the
// spacing (ulp) of a float type at a value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "trnccl/trnccl.h"

namespace trnccl::test {

enum class Specials {
  None,     // integers
  Ieee,     // the all-ones exponent is inf (mantissa 0) or NaN
  E4m3Ocp,  // OCP FP8 E4M3: no inf; only S.1111.111 is NaN; max 448
};

struct TypeInfo {
  trncclDataType_t type;
  size_t bytes;
  bool isFloat;
  bool isSigned;  // integers: two's complement; floats: always true
  int expBits;    // floats only
  int manBits;    // floats only (stored bits, without the implicit one)
  int bias;       // floats only
  Specials specials;
};

const TypeInfo& typeInfo(trncclDataType_t type);
const std::vector<trncclDataType_t>& allTypes();  // the 12 types, in enum order
// The library's names (base/type_table.h): "float", "bfloat16"; "sum", "max".
const char* dataTypeName(trncclDataType_t type);
const char* opName(trncclRedOp_t op);
const std::vector<trncclRedOp_t>& allOps();  // the 5 ops

// All ones in the type's width (0xff for 8-bit types).
uint64_t widthMask(trncclDataType_t type);
// Integer types: the bits as a value, sign-extended for signed types.
int64_t asSigned(trncclDataType_t type, uint64_t bits);

// Element i of a buffer of `type`, as raw bits (zero-extended).
uint64_t loadBits(trncclDataType_t type, const void* buffer, size_t i);
void storeBits(trncclDataType_t type, void* buffer, size_t i, uint64_t bits);

// Float types: any bit pattern to its value (NaN, +-inf included).
double decodeFloat(trncclDataType_t type, uint64_t bits);
// Float types: the bits of `value`, which must be exactly representable
// (sets *ok = false and returns 0 otherwise).
uint64_t encodeExact(trncclDataType_t type, double value, bool* ok);
// Same, but a value that is not representable is a bug in the test: abort.
uint64_t encodeExactOrDie(trncclDataType_t type, double value);
// Float types: the distance between adjacent representable values around
// `value` (the larger one at a power of two), subnormals included.
double ulpAt(trncclDataType_t type, double value);

// "0x3c00 (1)" or "0xff (-1)": bits and value, for failure messages.
std::string describe(trncclDataType_t type, uint64_t bits);

}  // namespace trnccl::test
