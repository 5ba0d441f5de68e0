// The scalar conversions of formats.h: the kernels' encoder and decoder
// instantiated for the scalar ISA.
#include "device/kernels/formats.h"

#include <type_traits>

#include "base/error.h"
#include "device/kernels/encoding.h"
#include "device/kernels/simd/scalar.h"

namespace trnccl::kernels {
namespace {

// Calls fn with the format as a compile-time constant.
template <class Fn>
auto withFormat(Format format, Fn fn) {
  switch (format) {
    case Format::Fp16: return fn(std::integral_constant<Format, Format::Fp16>{});
    case Format::Bf16: return fn(std::integral_constant<Format, Format::Bf16>{});
    case Format::E4m3: return fn(std::integral_constant<Format, Format::E4m3>{});
    case Format::E5m2: return fn(std::integral_constant<Format, Format::E5m2>{});
  }
  throwInvalidArgument("format", "is not a narrow floating-point format");
}

}  // namespace

std::optional<Format> narrowFormat(trncclDataType_t type) {
  switch (type) {
    case trncclFloat16: return Format::Fp16;
    case trncclBfloat16: return Format::Bf16;
    case trncclFloat8e4m3: return Format::E4m3;
    case trncclFloat8e5m2: return Format::E5m2;
    default: return std::nullopt;
  }
}

float decode(Format format, uint32_t code) {
  return withFormat(format, [code](auto f) {
    const uint32_t mask = (1u << spec(f.value).bits()) - 1;
    return decode<simd::Scalar, f.value>(code & mask);
  });
}

uint32_t encodeNearestEven(Format format, float value) {
  return withFormat(format, [value](auto f) { return encode<simd::Scalar, f.value, false>(value, 0); });
}

uint32_t encodeStochastic(Format format, float value, uint32_t randomBits) {
  return withFormat(format, [=](auto f) { return encode<simd::Scalar, f.value, true>(value, randomBits); });
}

}  // namespace trnccl::kernels
