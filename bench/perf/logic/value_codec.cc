#include "logic/value_codec.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "logic/minifloat.h"

namespace trnccl::perf {

namespace {

template <typename T>
void store(T value, std::byte* element) {
  std::memcpy(element, &value, sizeof value);
}

template <typename T>
T load(const std::byte* element) {
  T value;
  std::memcpy(&value, element, sizeof value);
  return value;
}

struct FloatShape {
  int mantissa_bits;
  int min_exponent;  // of the smallest normal number
};

FloatShape float_shape(trncclDataType_t type) {
  switch (type) {
    case trncclFloat16:
      return {10, -14};
    case trncclBfloat16:
      return {7, -126};
    case trncclFloat8e4m3:
      return {3, -6};
    case trncclFloat8e5m2:
      return {2, -14};
    case trncclFloat32:
      return {23, -126};
    default:
      return {52, -1022};
  }
}

}  // namespace

void encode_value(trncclDataType_t type, double value, std::byte* element) {
  switch (type) {
    case trncclInt8:
      return store(static_cast<int8_t>(value), element);
    case trncclUint8:
      return store(static_cast<uint8_t>(value), element);
    case trncclInt32:
      return store(static_cast<int32_t>(value), element);
    case trncclUint32:
      return store(static_cast<uint32_t>(value), element);
    case trncclInt64:
      return store(static_cast<int64_t>(value), element);
    case trncclUint64:
      return store(static_cast<uint64_t>(value), element);
    case trncclFloat16:
      return store(static_cast<uint16_t>(encode_minifloat(value, kHalf)), element);
    case trncclFloat32:
      return store(static_cast<float>(value), element);
    case trncclBfloat16:
      return store(static_cast<uint16_t>(encode_minifloat(value, kBfloat16)), element);
    case trncclFloat8e4m3:
      return store(static_cast<uint8_t>(encode_minifloat(value, kFloat8e4m3)), element);
    case trncclFloat8e5m2:
      return store(static_cast<uint8_t>(encode_minifloat(value, kFloat8e5m2)), element);
    default:
      return store(value, element);
  }
}

double decode_value(trncclDataType_t type, const std::byte* element) {
  switch (type) {
    case trncclInt8:
      return load<int8_t>(element);
    case trncclUint8:
      return load<uint8_t>(element);
    case trncclInt32:
      return load<int32_t>(element);
    case trncclUint32:
      return load<uint32_t>(element);
    case trncclInt64:
      return static_cast<double>(load<int64_t>(element));
    case trncclUint64:
      return static_cast<double>(load<uint64_t>(element));
    case trncclFloat16:
      return decode_minifloat(load<uint16_t>(element), kHalf);
    case trncclFloat32:
      return load<float>(element);
    case trncclBfloat16:
      return decode_minifloat(load<uint16_t>(element), kBfloat16);
    case trncclFloat8e4m3:
      return decode_minifloat(load<uint8_t>(element), kFloat8e4m3);
    case trncclFloat8e5m2:
      return decode_minifloat(load<uint8_t>(element), kFloat8e5m2);
    default:
      return load<double>(element);
  }
}

double ulp(trncclDataType_t type, double value) {
  const FloatShape shape = float_shape(type);
  const int exponent = value == 0.0 ? shape.min_exponent : std::max(std::ilogb(value), shape.min_exponent);
  return std::ldexp(1.0, exponent - shape.mantissa_bits);
}

double exact_integer_limit(trncclDataType_t type) {
  switch (type) {
    case trncclInt8:
      return std::numeric_limits<int8_t>::max();
    case trncclUint8:
      return std::numeric_limits<uint8_t>::max();
    case trncclInt32:
      return std::numeric_limits<int32_t>::max();
    case trncclUint32:
      return std::numeric_limits<uint32_t>::max();
    case trncclInt64:
    case trncclUint64:
      return std::ldexp(1.0, 53);  // the limit of the double the check computes in
    default:
      return std::ldexp(1.0, float_shape(type).mantissa_bits + 1);
  }
}

}  // namespace trnccl::perf
