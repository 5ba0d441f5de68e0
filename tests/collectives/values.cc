#include "values.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "encoding.h"

namespace trnccl::test {
namespace {

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <size_t N>
double pick(const double (&table)[N], uint64_t random) {
  return table[random % N];
}

const double kSumValues[] = {-1, 0, 1, 2};
const double kSumValuesE5m2[] = {-1, 0, 1};
const double kProdValues[] = {1, 2, -1, -2, 0.5, 1, -1};  // mostly +-1: few factors of 2
const double kMinMaxValues[] = {-6, -3.5, -1.5, -0.25, 0, 0.5, 1, 1.75, 3, 7};

std::string formatDouble(double v) {
  char text[48];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

bool integerMatches(trncclDataType_t type, trncclRedOp_t op, const std::vector<uint64_t>& inputs, uint64_t got,
                    std::string* expected) {
  const uint64_t mask = widthMask(type);
  const bool isSigned = typeInfo(type).isSigned;
  auto less = [&](uint64_t a, uint64_t b) {
    return isSigned ? asSigned(type, a) < asSigned(type, b) : (a & mask) < (b & mask);
  };
  uint64_t acc = inputs.at(0) & mask;
  for (size_t r = 1; r < inputs.size(); ++r) {
    const uint64_t x = inputs[r] & mask;
    switch (op) {
      case trncclSum:
      case trncclAvg:
        acc = (acc + x) & mask;
        break;
      case trncclProd:
        acc = (acc * x) & mask;
        break;
      case trncclMax:
        acc = less(acc, x) ? x : acc;
        break;
      case trncclMin:
        acc = less(x, acc) ? x : acc;
        break;
      default:
        break;
    }
  }
  if (op == trncclAvg) {
    const auto n = static_cast<int64_t>(inputs.size());
    if (isSigned)
      acc = static_cast<uint64_t>(asSigned(type, acc) / n) & mask;  // C truncates toward zero
    else
      acc = acc / static_cast<uint64_t>(n);
  }
  if ((got & mask) == acc) return true;
  *expected = describe(type, acc);
  return false;
}

bool floatMatches(trncclDataType_t type, trncclRedOp_t op, const std::vector<uint64_t>& inputs, uint64_t got,
                  std::string* expected) {
  double acc = decodeFloat(type, inputs.at(0));
  for (size_t r = 1; r < inputs.size(); ++r) {
    const double x = decodeFloat(type, inputs[r]);
    switch (op) {
      case trncclSum:
      case trncclAvg:
        acc += x;
        break;
      case trncclProd:
        acc *= x;
        break;
      case trncclMax:
        acc = std::max(acc, x);
        break;
      case trncclMin:
        acc = std::min(acc, x);
        break;
      default:
        break;
    }
  }
  const double value = decodeFloat(type, got);
  if (op == trncclAvg) {
    const double reference = acc / static_cast<double>(inputs.size());
    const double tolerance = ulpAt(type, reference);
    if (std::fabs(value - reference) <= tolerance) return true;  // false for NaN
    *expected = formatDouble(reference) + " within one ulp (" + formatDouble(tolerance) + ")";
    return false;
  }
  if (value == acc) return true;
  bool exact = false;
  const uint64_t bits = encodeExact(type, acc, &exact);
  *expected = exact ? describe(type, bits) : formatDouble(acc) + " (not representable: test bug)";
  return false;
}

}  // namespace

uint64_t mixBits(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return splitmix(splitmix(splitmix(splitmix(a) ^ b) ^ c) ^ d);
}

uint64_t reductionInput(trncclDataType_t type, trncclRedOp_t op, int rank, size_t i, uint64_t salt) {
  const uint64_t random =
      mixBits(salt, static_cast<uint64_t>(type) * 8 + static_cast<uint64_t>(op), static_cast<uint64_t>(rank), i);
  const TypeInfo& t = typeInfo(type);
  if (!t.isFloat) {
    if (op != trncclAvg) return random & widthMask(type);
    // Small values: the sum is exact, and signed sums may be negative (to
    // check that the average truncates toward zero, as C does).
    const int64_t small = t.isSigned ? static_cast<int64_t>(random % 7) - 3 : static_cast<int64_t>(random % 7);
    return static_cast<uint64_t>(small) & widthMask(type);
  }
  double value = 0;
  switch (op) {
    case trncclSum:
    case trncclAvg:
      value = type == trncclFloat8e5m2 ? pick(kSumValuesE5m2, random) : pick(kSumValues, random);
      break;
    case trncclProd:
      value = pick(kProdValues, random);
      break;
    default:
      value = pick(kMinMaxValues, random);
      break;
  }
  return encodeExactOrDie(type, value);
}

uint64_t movedInput(trncclDataType_t type, int rank, size_t i, uint64_t salt) {
  return mixBits(salt ^ 0x6d6f766564ull, static_cast<uint64_t>(type), static_cast<uint64_t>(rank), i) & widthMask(type);
}

bool reductionMatches(trncclDataType_t type, trncclRedOp_t op, const std::vector<uint64_t>& inputs, uint64_t got,
                      std::string* expected) {
  return typeInfo(type).isFloat ? floatMatches(type, op, inputs, got, expected)
                                : integerMatches(type, op, inputs, got, expected);
}

}  // namespace trnccl::test
