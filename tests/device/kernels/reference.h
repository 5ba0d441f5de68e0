// An independent reference for the kernel tests, written from the format
// definitions (IEEE 754 and the OCP 8-bit floating point specification), not
// from src/device/kernels: values in double precision, and rounding a double
// to a type by scaling to the last kept bit and std::nearbyint (ties to even).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "trnccl/trnccl.h"

namespace trnccl::device::kernels::test {

struct FloatLayout {
  int exponentBits;
  int mantissaBits;
  int bias;
  bool ieeeSpecials;  // all-ones exponent = inf/NaN (else OCP E4M3: NaN = S.1111.111 only)
};

// fp16, bf16, fp8, fp32, fp64.
FloatLayout layoutOf(trncclDataType_t type);

// The value of element i of a buffer of `type`, in double precision (exact
// for every floating type; integers are converted, which is exact up to 2^53).
double valueAt(trncclDataType_t type, const void* buffer, size_t i);

// The value of a code of a 16- or 8-bit floating type, from the formula.
double decodeCode(trncclDataType_t type, uint32_t code);

// x rounded to nearest even in `type` (a floating type), overflowing as the
// type does: +-inf for fp16, bf16, E5M2, fp32; saturation to +-448 for E4M3,
// where +-inf becomes NaN. NaN gives NaN.
double roundToType(trncclDataType_t type, double x);

// valueAt() through a table of every code for the 16- and 8-bit floats:
// fast enough to check millions of results.
class Decoder {
 public:
  explicit Decoder(trncclDataType_t type);
  double operator()(const void* buffer, size_t i) const;

 private:
  trncclDataType_t type_;
  std::vector<double> table_;
};

// The representable values of a 16- or 8-bit floating type, ascending, each
// once (+0 only), without NaN and infinities.
std::vector<double> finiteValues(trncclDataType_t type);

}  // namespace trnccl::device::kernels::test
