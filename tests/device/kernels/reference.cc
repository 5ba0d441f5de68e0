#include "reference.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace trnccl::device::kernels::test {
namespace {

double maxFinite(const FloatLayout& f) {
  const int maxField = (1 << f.exponentBits) - (f.ieeeSpecials ? 2 : 1);
  // E4M3's top exponent keeps mantissas 0..110 (111 is NaN).
  const int maxMantissa = (1 << f.mantissaBits) - (f.ieeeSpecials ? 1 : 2);
  return std::ldexp(1.0 + std::ldexp(maxMantissa, -f.mantissaBits), maxField - f.bias);
}

template <class T>
T read(const void* buffer, size_t i) {
  T value;
  std::memcpy(&value, static_cast<const char*>(buffer) + i * sizeof(T), sizeof(T));
  return value;
}

}  // namespace

FloatLayout layoutOf(trncclDataType_t type) {
  switch (type) {
    case trncclFloat16:
      return {5, 10, 15, true};
    case trncclBfloat16:
      return {8, 7, 127, true};
    case trncclFloat8e4m3:
      return {4, 3, 7, false};
    case trncclFloat8e5m2:
      return {5, 2, 15, true};
    case trncclFloat32:
      return {8, 23, 127, true};
    case trncclFloat64:
      return {11, 52, 1023, true};
    default:
      throw std::invalid_argument("not a floating type");
  }
}

double decodeCode(trncclDataType_t type, uint32_t code) {
  const FloatLayout f = layoutOf(type);
  const int width = 1 + f.exponentBits + f.mantissaBits;
  const bool negative = ((code >> (width - 1)) & 1) != 0;
  const int exponent = static_cast<int>((code >> f.mantissaBits) & ((1u << f.exponentBits) - 1));
  const uint32_t mantissa = code & ((1u << f.mantissaBits) - 1);
  const int maxField = (1 << f.exponentBits) - 1;
  double magnitude;
  if (f.ieeeSpecials && exponent == maxField) {
    magnitude = mantissa != 0 ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (!f.ieeeSpecials && exponent == maxField && mantissa == (1u << f.mantissaBits) - 1) {
    magnitude = std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissaBits);
  } else {
    magnitude = std::ldexp(static_cast<double>((1u << f.mantissaBits) + mantissa), exponent - f.bias - f.mantissaBits);
  }
  return negative ? -magnitude : magnitude;
}

double roundToType(trncclDataType_t type, double x) {
  if (type == trncclFloat64) return x;
  const FloatLayout f = layoutOf(type);
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return f.ieeeSpecials ? x : std::numeric_limits<double>::quiet_NaN();
  const double magnitude = std::fabs(x);
  int exponent = 0;
  std::frexp(magnitude, &exponent);                         // magnitude = m * 2^exponent, m in [0.5, 1)
  const int unbiased = std::max(exponent - 1, 1 - f.bias);  // subnormals share the minimum
  const double quantum = std::ldexp(1.0, unbiased - f.mantissaBits);
  double rounded = std::nearbyint(magnitude / quantum) * quantum;
  if (rounded > maxFinite(f)) rounded = f.ieeeSpecials ? std::numeric_limits<double>::infinity() : maxFinite(f);
  return std::copysign(rounded, x);
}

double valueAt(trncclDataType_t type, const void* buffer, size_t i) {
  switch (type) {
    case trncclInt8:
      return read<int8_t>(buffer, i);
    case trncclUint8:
      return read<uint8_t>(buffer, i);
    case trncclInt32:
      return read<int32_t>(buffer, i);
    case trncclUint32:
      return read<uint32_t>(buffer, i);
    case trncclInt64:
      return static_cast<double>(read<int64_t>(buffer, i));
    case trncclUint64:
      return static_cast<double>(read<uint64_t>(buffer, i));
    case trncclFloat32:
      return read<float>(buffer, i);
    case trncclFloat64:
      return read<double>(buffer, i);
    case trncclFloat16:
    case trncclBfloat16:
      return decodeCode(type, read<uint16_t>(buffer, i));
    case trncclFloat8e4m3:
    case trncclFloat8e5m2:
      return decodeCode(type, read<uint8_t>(buffer, i));
    default:
      throw std::invalid_argument("not a data type");
  }
}

Decoder::Decoder(trncclDataType_t type) : type_(type) {
  if (type == trncclFloat16 || type == trncclBfloat16 || type == trncclFloat8e4m3 || type == trncclFloat8e5m2) {
    const FloatLayout f = layoutOf(type);
    table_.resize(size_t{1} << (1 + f.exponentBits + f.mantissaBits));
    for (size_t code = 0; code < table_.size(); ++code) table_[code] = decodeCode(type, static_cast<uint32_t>(code));
  }
}

double Decoder::operator()(const void* buffer, size_t i) const {
  if (table_.empty()) return valueAt(type_, buffer, i);
  return table_.size() == 256 ? table_[read<uint8_t>(buffer, i)] : table_[read<uint16_t>(buffer, i)];
}

std::vector<double> finiteValues(trncclDataType_t type) {
  const FloatLayout f = layoutOf(type);
  const uint32_t codes = 1u << (1 + f.exponentBits + f.mantissaBits);
  std::vector<double> values;
  for (uint32_t code = 0; code < codes; ++code) {
    const double v = decodeCode(type, code);
    if (std::isfinite(v) && !(v == 0 && std::signbit(v))) values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  return values;
}

}  // namespace trnccl::device::kernels::test
