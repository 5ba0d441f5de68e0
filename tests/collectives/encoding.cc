#include "encoding.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "base/type_table.h"

namespace trnccl::test {
namespace {

const TypeInfo kTypes[] = {
    {trncclInt8, 1, false, true, 0, 0, 0, Specials::None},
    {trncclUint8, 1, false, false, 0, 0, 0, Specials::None},
    {trncclInt32, 4, false, true, 0, 0, 0, Specials::None},
    {trncclUint32, 4, false, false, 0, 0, 0, Specials::None},
    {trncclInt64, 8, false, true, 0, 0, 0, Specials::None},
    {trncclUint64, 8, false, false, 0, 0, 0, Specials::None},
    {trncclFloat16, 2, true, true, 5, 10, 15, Specials::Ieee},
    {trncclFloat32, 4, true, true, 8, 23, 127, Specials::Ieee},
    {trncclFloat64, 8, true, true, 11, 52, 1023, Specials::Ieee},
    {trncclBfloat16, 2, true, true, 8, 7, 127, Specials::Ieee},
    {trncclFloat8e4m3, 1, true, true, 4, 3, 7, Specials::E4m3Ocp},
    {trncclFloat8e5m2, 1, true, true, 5, 2, 15, Specials::Ieee},
};

}  // namespace

const TypeInfo& typeInfo(trncclDataType_t type) {
  const int t = static_cast<int>(type);
  if (t < 0 || t >= static_cast<int>(std::size(kTypes))) {
    std::fprintf(stderr, "colltest: typeInfo(%d): not a data type\n", t);
    std::abort();
  }
  return kTypes[t];
}

const std::vector<trncclDataType_t>& allTypes() {
  static const std::vector<trncclDataType_t> types = [] {
    std::vector<trncclDataType_t> v;
    for (const TypeInfo& t : kTypes) v.push_back(t.type);
    return v;
  }();
  return types;
}

const char* dataTypeName(trncclDataType_t type) { return kTypeFacts.at(static_cast<size_t>(typeInfo(type).type)).name; }

const char* opName(trncclRedOp_t op) {
  return static_cast<size_t>(op) < kOpNames.size() ? kOpNames[static_cast<size_t>(op)] : "?op";
}

const std::vector<trncclRedOp_t>& allOps() {
  static const std::vector<trncclRedOp_t> ops = {trncclSum, trncclProd, trncclMax, trncclMin, trncclAvg};
  return ops;
}

uint64_t widthMask(trncclDataType_t type) {
  const size_t bytes = typeInfo(type).bytes;
  return bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
}

int64_t asSigned(trncclDataType_t type, uint64_t bits) {
  const unsigned width = static_cast<unsigned>(8 * typeInfo(type).bytes);
  bits &= widthMask(type);
  if (width < 64 && (bits >> (width - 1)) != 0) bits |= ~widthMask(type);
  int64_t out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

uint64_t loadBits(trncclDataType_t type, const void* buffer, size_t i) {
  const size_t bytes = typeInfo(type).bytes;
  uint64_t out = 0;
  // Little-endian host: the low bytes of `out` are the element.
  std::memcpy(&out, static_cast<const char*>(buffer) + i * bytes, bytes);
  return out;
}

void storeBits(trncclDataType_t type, void* buffer, size_t i, uint64_t bits) {
  const size_t bytes = typeInfo(type).bytes;
  std::memcpy(static_cast<char*>(buffer) + i * bytes, &bits, bytes);
}

double decodeFloat(trncclDataType_t type, uint64_t bits) {
  const TypeInfo& t = typeInfo(type);
  const int E = t.expBits, M = t.manBits;
  const bool negative = ((bits >> (E + M)) & 1) != 0;
  const uint64_t exponent = (bits >> M) & ((uint64_t{1} << E) - 1);
  const uint64_t mantissa = bits & ((uint64_t{1} << M) - 1);
  const uint64_t maxExponent = (uint64_t{1} << E) - 1;
  double magnitude;
  if (t.specials == Specials::Ieee && exponent == maxExponent) {
    magnitude = mantissa == 0 ? HUGE_VAL : NAN;
  } else if (t.specials == Specials::E4m3Ocp && exponent == maxExponent && mantissa == (uint64_t{1} << M) - 1) {
    magnitude = NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - t.bias - M);
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa | (uint64_t{1} << M)), static_cast<int>(exponent) - t.bias - M);
  }
  return negative ? -magnitude : magnitude;
}

uint64_t encodeExact(trncclDataType_t type, double value, bool* ok) {
  const TypeInfo& t = typeInfo(type);
  const int E = t.expBits, M = t.manBits;
  *ok = true;
  if (std::isnan(value)) return *ok = false, 0;
  const uint64_t sign = std::signbit(value) ? uint64_t{1} << (E + M) : 0;
  const double a = std::fabs(value);
  const uint64_t maxExponent = (uint64_t{1} << E) - 1;
  if (a == 0) return sign;
  if (std::isinf(a)) {
    if (t.specials != Specials::Ieee) return *ok = false, 0;
    return sign | (maxExponent << M);
  }
  int ex = 0;
  std::frexp(a, &ex);  // a = f * 2^ex, f in [0.5, 1)
  const int e = ex - 1, emin = 1 - t.bias;
  uint64_t biased = 0;
  double mantissa;
  if (e >= emin) {
    biased = static_cast<uint64_t>(e + t.bias);
    mantissa = std::ldexp(std::ldexp(a, -e) - 1.0, M);
  } else {
    mantissa = std::ldexp(a, M - emin);
  }
  if (mantissa != std::floor(mantissa) || mantissa >= std::ldexp(1.0, M)) return *ok = false, 0;
  const uint64_t m = static_cast<uint64_t>(mantissa);
  const bool tooLarge = t.specials == Specials::Ieee
                            ? biased >= maxExponent
                            : biased > maxExponent || (biased == maxExponent && m == (uint64_t{1} << M) - 1);
  if (tooLarge) return *ok = false, 0;
  return sign | (biased << M) | m;
}

uint64_t encodeExactOrDie(trncclDataType_t type, double value) {
  bool ok = false;
  const uint64_t bits = encodeExact(type, value, &ok);
  if (!ok) {
    std::fprintf(stderr, "colltest: %.17g is not exactly representable in %s (test bug)\n", value, dataTypeName(type));
    std::abort();
  }
  return bits;
}

double ulpAt(trncclDataType_t type, double value) {
  const TypeInfo& t = typeInfo(type);
  const int emin = 1 - t.bias;
  int e = emin;
  if (value != 0 && std::isfinite(value)) {
    int ex = 0;
    std::frexp(std::fabs(value), &ex);
    e = std::max(ex - 1, emin);
  }
  return std::ldexp(1.0, e - t.manBits);
}

std::string describe(trncclDataType_t type, uint64_t bits) {
  const TypeInfo& t = typeInfo(type);
  char text[96];
  const int digits = static_cast<int>(2 * t.bytes);
  const auto hex = static_cast<unsigned long long>(bits & widthMask(type));
  if (t.isFloat)
    std::snprintf(text, sizeof text, "0x%0*llx (%.9g)", digits, hex, decodeFloat(type, bits));
  else if (t.isSigned)
    std::snprintf(text, sizeof text, "0x%0*llx (%lld)", digits, hex, static_cast<long long>(asSigned(type, bits)));
  else
    std::snprintf(text, sizeof text, "0x%0*llx (%llu)", digits, hex, hex);
  return text;
}

}  // namespace trnccl::test
