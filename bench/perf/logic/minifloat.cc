#include "logic/minifloat.h"

#include <cmath>
#include <limits>

namespace trnccl::perf {

namespace {

struct Fields {
  int bias;
  uint32_t exponent_all_ones;
  uint32_t mantissa_all_ones;
  uint32_t sign_bit;
};

Fields fields_of(MinifloatFormat f) {
  return {(1 << (f.exponent_bits - 1)) - 1, (1u << f.exponent_bits) - 1, (1u << f.mantissa_bits) - 1,
          1u << (f.exponent_bits + f.mantissa_bits)};
}

}  // namespace

uint32_t encode_minifloat(double value, MinifloatFormat format) {
  const Fields f = fields_of(format);
  const int m = format.mantissa_bits;
  const uint32_t sign = std::signbit(value) ? f.sign_bit : 0;
  const uint32_t nan = sign | (f.exponent_all_ones << m) | f.mantissa_all_ones;
  const uint32_t inf = format.has_infinity ? sign | (f.exponent_all_ones << m) : nan;
  if (std::isnan(value)) return nan;
  if (std::isinf(value)) return inf;
  const double magnitude = std::fabs(value);
  if (magnitude == 0.0) return sign;

  const int min_exponent = 1 - f.bias;
  int exponent = std::ilogb(magnitude);
  if (exponent < min_exponent) exponent = min_exponent;  // subnormal: fixed quantum
  // The significand as an integer with m fraction bits; nearbyint rounds to
  // nearest even in the default rounding mode.
  auto significand = static_cast<uint64_t>(std::nearbyint(std::ldexp(magnitude, m - exponent)));
  if (significand == (uint64_t{2} << m)) {  // rounding carried into the next binade
    significand >>= 1;
    ++exponent;
  }
  const bool normal = significand >= (uint64_t{1} << m);
  const uint32_t exponent_field = normal ? static_cast<uint32_t>(exponent + f.bias) : 0;
  const uint32_t mantissa_field = static_cast<uint32_t>(significand) & f.mantissa_all_ones;
  const uint32_t max_exponent_field = format.has_infinity ? f.exponent_all_ones - 1 : f.exponent_all_ones;
  if (exponent_field > max_exponent_field) return inf;
  if (!format.has_infinity && exponent_field == max_exponent_field && mantissa_field == f.mantissa_all_ones) {
    return inf;
  }
  return sign | (exponent_field << m) | mantissa_field;
}

double decode_minifloat(uint32_t bits, MinifloatFormat format) {
  const Fields f = fields_of(format);
  const int m = format.mantissa_bits;
  const double sign = (bits & f.sign_bit) ? -1.0 : 1.0;
  const uint32_t exponent_field = (bits >> m) & f.exponent_all_ones;
  const uint32_t mantissa_field = bits & f.mantissa_all_ones;
  if (exponent_field == f.exponent_all_ones) {
    if (format.has_infinity) {
      return mantissa_field == 0 ? sign * std::numeric_limits<double>::infinity()
                                 : std::numeric_limits<double>::quiet_NaN();
    }
    if (mantissa_field == f.mantissa_all_ones) return std::numeric_limits<double>::quiet_NaN();
  }
  if (exponent_field == 0) return sign * std::ldexp(mantissa_field, 1 - f.bias - m);
  return sign * std::ldexp(mantissa_field | (1u << m), static_cast<int>(exponent_field) - f.bias - m);
}

}  // namespace trnccl::perf
