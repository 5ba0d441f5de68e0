// Every type x op x source count x size x placement, on every ISA this CPU
// runs, against a reference computed here in double precision.
//
// What a result must be:
//  - integers: exactly the wrapped result (computed here in 64-bit
//    arithmetic and truncated), avg = wrapped sum / divisor truncating;
//  - fp64: exactly the double-precision result in source order;
//  - fp32: within K * 2^-23 * sum|x| of the exact sum (avg: of sum / d;
//    prod: K * 2^-23 * |exact product|) + 2^-149; max/min exactly;
//  - fp16/bf16/fp8: between the reference rounded to the type (nearest even)
//    at r - e and at r + e, where e bounds the FP32 accumulation error
//    (sum/avg: K * 2^-24 * sum|x| / d, prod: K * 2^-24 * |r|; plus 2^-149
//    for an FP32 denormal's rounding in avg's division). So the result
//    is the correctly rounded reference unless the FP32 error can cross a
//    rounding boundary, and then at most the neighbouring code; max/min
//    (e = 0) must be the exact input.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "base/datatype.h"
#include "reference.h"
#include "test_support.h"

namespace trnccl::device::kernels::test {
namespace {

constexpr size_t kLargest = (size_t{1} << 20) + 3;
constexpr size_t kSizes[] = {0, 1, 7, 4097, kLargest};
// Looping over the sources (1, 2, 9) and compiled for the count (3 .. 8;
// kernel_templates.h).
constexpr int kSourceCounts[] = {1, 2, 5, 8, 9};
constexpr int kMaxSources = 9;
constexpr size_t kGuardBytes = 64;
constexpr std::byte kSentinel{0xA5};

enum class Placement { Aligned, ElementOffset, ByteOffset };
constexpr Placement kPlacements[] = {Placement::Aligned, Placement::ElementOffset, Placement::ByteOffset};

size_t offsetOf(Placement placement, trncclDataType_t type) {
  switch (placement) {
    case Placement::Aligned:
      return 0;
    case Placement::ElementOffset:
      return typeSize(type);
    case Placement::ByteOffset:
      return 1;
  }
  return 0;
}

const char* nameOf(Placement placement) {
  switch (placement) {
    case Placement::Aligned:
      return "aligned";
    case Placement::ElementOffset:
      return "element offset";
    case Placement::ByteOffset:
      return "byte offset";
  }
  return "?";
}

// Not a power of two for K = 2 and 8, so the division rounds.
uint64_t avgDivisorFor(int nsrcs) { return static_cast<uint64_t>(nsrcs) + 1; }

// The same random sources in every placement.
class Sources {
 public:
  Sources(trncclDataType_t type, Values values, std::mt19937_64& rng) {
    const size_t bytes = kLargest * typeSize(type);
    for (int k = 0; k < kMaxSources; ++k) {
      Buffer random(bytes, 0);
      fillRandom(type, values, random.data(), kLargest, rng);
      for (Placement placement : kPlacements) {
        Buffer& copy = buffers_[index(placement)].emplace_back(bytes, offsetOf(placement, type));
        std::memcpy(copy.data(), random.data(), bytes);
      }
    }
  }

  std::vector<const void*> pointers(Placement placement, int nsrcs) const {
    std::vector<const void*> result;
    for (int k = 0; k < nsrcs; ++k) result.push_back(buffers_[index(placement)][k].data());
    return result;
  }

 private:
  static size_t index(Placement placement) { return static_cast<size_t>(placement); }
  std::vector<Buffer> buffers_[std::size(kPlacements)];
};

template <class T>
T elementAt(const void* buffer, size_t i) {
  T value;
  std::memcpy(&value, static_cast<const std::byte*>(buffer) + i * sizeof(T), sizeof(T));
  return value;
}

template <class T>
uint64_t integerReference(trncclRedOp_t op, const std::vector<const void*>& srcs, size_t i, uint64_t divisor) {
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  uint64_t sum = 0, product = 1;
  Wide largest = elementAt<T>(srcs[0], i), smallest = largest;
  for (const void* src : srcs) {
    const Wide x = elementAt<T>(src, i);
    sum += static_cast<uint64_t>(x);
    product *= static_cast<uint64_t>(x);
    largest = std::max(largest, x);
    smallest = std::min(smallest, x);
  }
  T result{};
  switch (op) {
    case trncclSum:
      result = static_cast<T>(sum);
      break;
    case trncclProd:
      result = static_cast<T>(product);
      break;
    case trncclMax:
      result = static_cast<T>(largest);
      break;
    case trncclMin:
      result = static_cast<T>(smallest);
      break;
    default:
      result = static_cast<T>(static_cast<Wide>(static_cast<T>(sum)) / static_cast<Wide>(divisor));
  }
  uint64_t bits = 0;
  std::memcpy(&bits, &result, sizeof(T));
  return bits;
}

uint64_t integerReference(trncclDataType_t type, trncclRedOp_t op, const std::vector<const void*>& srcs, size_t i,
                          uint64_t divisor) {
  switch (type) {
    case trncclInt8:
      return integerReference<int8_t>(op, srcs, i, divisor);
    case trncclUint8:
      return integerReference<uint8_t>(op, srcs, i, divisor);
    case trncclInt32:
      return integerReference<int32_t>(op, srcs, i, divisor);
    case trncclUint32:
      return integerReference<uint32_t>(op, srcs, i, divisor);
    case trncclInt64:
      return integerReference<int64_t>(op, srcs, i, divisor);
    default:
      return integerReference<uint64_t>(op, srcs, i, divisor);
  }
}

struct FloatReference {
  double value;      // the exact result (up to double rounding)
  double magnitude;  // sum |x| / d for sum and avg, |value| for prod, 0 for max/min
};

FloatReference floatReference(trncclRedOp_t op, const std::vector<double>& xs, uint64_t divisor) {
  // Source order, starting from src0 itself (so a lone -0 stays -0).
  double sum = xs[0], absSum = std::fabs(xs[0]), product = xs[0], largest = xs[0], smallest = xs[0];
  for (size_t k = 1; k < xs.size(); ++k) {
    sum += xs[k];
    absSum += std::fabs(xs[k]);
    product *= xs[k];
    largest = std::max(largest, xs[k]);
    smallest = std::min(smallest, xs[k]);
  }
  const auto d = static_cast<double>(divisor);
  switch (op) {
    case trncclSum:
      return {sum, absSum};
    case trncclProd:
      return {product, std::fabs(product)};
    case trncclMax:
      return {largest, 0};
    case trncclMin:
      return {smallest, 0};
    default:
      return {sum / d, absSum / d};
  }
}

// Integers and fp64: exact bits; the other floats: an interval of values.
struct Expected {
  std::vector<uint64_t> bits;
  std::vector<double> low, high;
};

Expected expect(trncclDataType_t type, trncclRedOp_t op, const std::vector<const void*>& srcs) {
  const uint64_t divisor = avgDivisorFor(static_cast<int>(srcs.size()));
  const auto nsrcs = static_cast<double>(srcs.size());
  const Decoder decoder(type);
  Expected expected;
  std::vector<double> xs(srcs.size());
  for (size_t i = 0; i < kLargest; ++i) {
    if (!isFloatType(type)) {
      expected.bits.push_back(integerReference(type, op, srcs, i, divisor));
      continue;
    }
    for (size_t k = 0; k < srcs.size(); ++k) xs[k] = decoder(srcs[k], i);
    const FloatReference r = floatReference(op, xs, divisor);
    const double denormalSlack = r.magnitude > 0 ? 0x1p-149 : 0;
    if (type == trncclFloat64) {
      uint64_t bits;
      std::memcpy(&bits, &r.value, sizeof bits);
      expected.bits.push_back(bits);
    } else if (type == trncclFloat32) {
      const double error = nsrcs * 0x1p-23 * r.magnitude + denormalSlack;
      expected.low.push_back(r.value - error);
      expected.high.push_back(r.value + error);
    } else {
      const double error = nsrcs * 0x1p-24 * r.magnitude + denormalSlack;
      expected.low.push_back(roundToType(type, r.value - error));
      expected.high.push_back(roundToType(type, r.value + error));
    }
  }
  return expected;
}

// Empty when the first `count` results meet the expectation and nothing
// beyond them was written; else what went wrong first.
std::string mismatch(trncclDataType_t type, const Expected& expected, const std::byte* dst, size_t count) {
  const Decoder decoder(type);
  for (size_t i = 0; i < count; ++i) {
    if (!expected.bits.empty()) {
      if (bitsAt(type, dst, i) == expected.bits[i]) continue;
      return "element " + std::to_string(i) + ": got " + hex(bitsAt(type, dst, i)) + ", expected " +
             hex(expected.bits[i]);
    }
    const double y = decoder(dst, i);
    if (y >= expected.low[i] && y <= expected.high[i]) continue;
    std::ostringstream text;
    text.precision(17);
    text << "element " << i << ": got " << y << " (" << hex(bitsAt(type, dst, i)) << "), expected [" << expected.low[i]
         << ", " << expected.high[i] << "]";
    return text.str();
  }
  for (size_t b = 0; b < kGuardBytes; ++b)
    if (dst[count * typeSize(type) + b] != kSentinel) return "wrote past the end";
  return {};
}

void checkType(trncclDataType_t type) {
  std::mt19937_64 rng(1000 + type);
  // Integers: every bit pattern (sums and products wrap). Floats: finite
  // values for sum/avg/max/min, magnitudes near 1 for products.
  const Sources general(type, isFloatType(type) ? Values::Finite : Values::AnyBits, rng);
  const Sources nearOne(type, isFloatType(type) ? Values::NearOne : Values::AnyBits, rng);
  Buffer dstBuffers[] = {Buffer((kLargest * 8) + kGuardBytes, 0), Buffer((kLargest * 8) + kGuardBytes, typeSize(type)),
                         Buffer((kLargest * 8) + kGuardBytes, 1)};
  for (trncclRedOp_t op : kAllOps) {
    const Sources& sources = op == trncclProd ? nearOne : general;
    for (int nsrcs : kSourceCounts) {
      const Expected expected = expect(type, op, sources.pointers(Placement::Aligned, nsrcs));
      for (Placement placement : kPlacements) {
        const std::vector<const void*> srcs = sources.pointers(placement, nsrcs);
        std::byte* dst = dstBuffers[static_cast<int>(placement)].data();
        for (Isa isa : supportedIsas()) {
          for (size_t count : kSizes) {
            std::memset(dst, static_cast<int>(kSentinel), count * typeSize(type) + kGuardBytes);
            ReduceArgs args = reduceArgs(dst, srcs, count, type, op);
            args.avgDivisor = avgDivisorFor(nsrcs);
            reduce(isa, args);
            INFO(typeName(type) << " " << opName(op) << " K=" << nsrcs << " count=" << count << " " << nameOf(placement)
                                << " on " << isaName(isa));
            REQUIRE(mismatch(type, expected, dst, count) == "");
          }
        }
      }
    }
  }
}

TEMPLATE_TEST_CASE_SIG("kernels: reduce matches the double-precision reference", "[kernels][reduce]",
                       ((trncclDataType_t kType), kType), trncclInt8, trncclUint8, trncclInt32, trncclUint32,
                       trncclInt64, trncclUint64, trncclFloat16, trncclFloat32, trncclFloat64, trncclBfloat16,
                       trncclFloat8e4m3, trncclFloat8e5m2) {
  checkType(kType);
}

}  // namespace
}  // namespace trnccl::device::kernels::test
