// The scalar conversions of formats.h: the kernels' codecs instantiated for
// the scalar ISA, on a one-element buffer.
#include "device/kernels/formats.h"

#include <type_traits>

#include "base/error.h"
#include "device/kernels/codecs.h"
#include "device/kernels/simd/scalar.h"

namespace trnccl::device::kernels {
namespace {

// Calls fn with the format as a compile-time constant.
template <class Fn>
auto withFormat(Format format, Fn fn) {
  switch (format) {
    case Format::Fp16:
      return fn(std::integral_constant<Format, Format::Fp16>{});
    case Format::Bf16:
      return fn(std::integral_constant<Format, Format::Bf16>{});
    case Format::E4m3:
      return fn(std::integral_constant<Format, Format::E4m3>{});
    case Format::E5m2:
      return fn(std::integral_constant<Format, Format::E5m2>{});
  }
  throwInvalidArgument("format", "is not a narrow floating-point format");
}

// The code of `value` stored (stochastically with randomWord), read back
// little-endian.
template <Format kFormat, bool kStochastic>
uint32_t encodeOne(float value, uint32_t randomWord) {
  using Codec = NarrowCodec<simd::Scalar, kFormat>;
  std::byte bytes[2] = {};
  if constexpr (kStochastic)
    Codec::template storeRoundingStochastically<1>(bytes, &value, &randomWord);
  else
    Codec::store(bytes, &value);
  return simd::loadAs<uint16_t>(bytes);
}

}  // namespace

std::optional<Format> narrowFormat(trncclDataType_t type) {
  switch (type) {
    case trncclFloat16:
      return Format::Fp16;
    case trncclBfloat16:
      return Format::Bf16;
    case trncclFloat8e4m3:
      return Format::E4m3;
    case trncclFloat8e5m2:
      return Format::E5m2;
    default:
      return std::nullopt;
  }
}

float decode(Format format, uint32_t code) {
  return withFormat(format, [code](auto f) {
    std::byte bytes[2];  // little-endian: an FP8 code is the first byte
    simd::storeAs(bytes, static_cast<uint16_t>(code));
    float value;
    NarrowCodec<simd::Scalar, f.value>::load(bytes, &value);
    return value;
  });
}

uint32_t encodeNearestEven(Format format, float value) {
  return withFormat(format, [value](auto f) { return encodeOne<f.value, false>(value, 0); });
}

uint32_t encodeStochastic(Format format, float value, uint32_t randomWord) {
  return withFormat(format, [=](auto f) { return encodeOne<f.value, true>(value, randomWord); });
}

}  // namespace trnccl::device::kernels
