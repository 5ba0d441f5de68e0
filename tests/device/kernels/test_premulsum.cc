// PreMulSum (ReduceArgs::preMultiply): the scaled sources multiplied by the
// scalar before the sum, on every type and ISA.
//  - Against a double-precision reference computed here: integers exactly
//    (wrapped products and sum), fp64 exactly (products and sums in source
//    order), fp32 within the FP32 error bound, the narrow types between the
//    reference at r - e and r + e rounded to the type (e bounds the FP32
//    products' and sums' error: 2K roundings of 2^-24 of sum |term|, plus an
//    FP32 denormal's rounding per term).
//  - Every ISA gives the scalar path's bits, on data and scalars with NaN,
//    infinities, subnormals, in both rounding modes.
//  - A narrow type's PreMulSum is the FP32 PreMulSum of its widened sources
//    and scalar, rounded once.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/datatype.h"
#include "base/error.h"
#include "reference.h"
#include "test_support.h"

namespace trnccl::device::kernels::test {
namespace {

constexpr size_t kLargest = 65536 + 3;
constexpr size_t kSizes[] = {1, 7, 4097, kLargest};
// The kernels loop over 1, 2 and more than 8 sources and are compiled for
// each count from 3 to 8 (kernel_templates.h). The bit-for-bit comparisons
// take every count; the double-precision reference, the costly one, a few.
constexpr int kSourceCounts[] = {1, 2, 3, 9};
constexpr int kEverySourceCount[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
constexpr int kMaxSources = 9;
// All sources; the first only (a ring step: the local input scaled, the
// received partial sum not); every other one.
constexpr uint64_t kMasks[] = {~uint64_t{0}, 1, 0x55};

uint64_t maskFor(uint64_t mask, int nsrcs) { return mask & ((uint64_t{1} << nsrcs) - 1); }

// The scalar's bits: a value every floating type rounds (about 1/3), a
// negative one, and for integers a small and a wrapping factor.
std::vector<uint64_t> scalarsFor(trncclDataType_t type) {
  if (!isFloatType(type)) return {3, ~uint64_t{0} - 4};  // 3 and -5 (as unsigned: a wrap)
  std::vector<uint64_t> scalars;
  for (double value : {1.0 / 3, -0.75}) {
    const double rounded = roundToType(type, value);
    uint64_t bits = 0;
    if (type == trncclFloat64) {
      std::memcpy(&bits, &rounded, sizeof bits);
    } else if (type == trncclFloat32) {
      const auto f = static_cast<float>(rounded);
      std::memcpy(&bits, &f, sizeof f);
    } else {
      const uint32_t codes = typeSize(type) == 1 ? 256 : 65536;
      for (uint32_t code = 0; code < codes; ++code)
        if (decodeCode(type, code) == rounded && !(rounded == 0 && std::signbit(decodeCode(type, code)))) bits = code;
    }
    scalars.push_back(bits);
  }
  return scalars;
}

std::vector<std::byte> randomBuffer(trncclDataType_t type, Values values, size_t count, std::mt19937_64& rng) {
  std::vector<std::byte> buffer(count * typeSize(type));
  fillRandom(type, values, buffer.data(), count, rng);
  return buffer;
}

ReduceArgs preMulSumArgs(void* dst, const std::vector<const void*>& srcs, size_t count, trncclDataType_t type,
                         const uint64_t& scalar, uint64_t mask) {
  ReduceArgs args = reduceArgs(dst, srcs, count, type, trncclSum);
  args.preMultiply.scalar = &scalar;  // little-endian: the low bytes are the element
  args.preMultiply.sources = mask;
  return args;
}

// Integers: the wrapped result's bits. Products and sums modulo 2^64 keep
// the low bits of the type's own wrapping, whatever the sign extension.
uint64_t integerExpected(trncclDataType_t type, const std::vector<const void*>& srcs, size_t i, uint64_t scalar,
                         uint64_t mask) {
  uint64_t sum = 0;
  for (size_t k = 0; k < srcs.size(); ++k) {
    const uint64_t x = bitsAt(type, srcs[k], i);
    sum += ((mask >> k) & 1) ? x * scalar : x;
  }
  const size_t bits = typeSize(type) * 8;
  return bits == 64 ? sum : sum & ((uint64_t{1} << bits) - 1);
}

std::string checkAgainstReference(trncclDataType_t type, const std::vector<const void*>& srcs, uint64_t scalar,
                                  uint64_t mask, const std::byte* dst, size_t count) {
  const Decoder decoder(type);
  const double s = isFloatType(type) ? valueAt(type, &scalar, 0) : 0;
  const auto nsrcs = static_cast<double>(srcs.size());
  // The message is made only for the element that fails: building it for
  // every element took most of the test's time.
  const auto got = [&](size_t i) { return "element " + std::to_string(i) + ": got " + hex(bitsAt(type, dst, i)); };
  for (size_t i = 0; i < count; ++i) {
    if (!isFloatType(type)) {
      const uint64_t expected = integerExpected(type, srcs, i, scalar, mask);
      if (bitsAt(type, dst, i) == expected) continue;
      return got(i) + ", expected " + hex(expected);
    }
    // Products of two doubles from narrower types are exact in double; fp64
    // repeats the kernel's operations in its order.
    double sum = 0, absSum = 0;
    for (size_t k = 0; k < srcs.size(); ++k) {
      const double x = decoder(srcs[k], i);
      const double term = ((mask >> k) & 1) ? x * s : x;
      sum = k == 0 ? term : sum + term;
      absSum += std::fabs(term);
    }
    if (type == trncclFloat64) {
      uint64_t expected;
      std::memcpy(&expected, &sum, sizeof expected);
      if (bitsAt(type, dst, i) == expected) continue;
      return got(i) + ", expected " + hex(expected);
    }
    const double error = nsrcs * (0x1p-23 * absSum + 0x1p-149);
    const double low = type == trncclFloat32 ? sum - error : roundToType(type, sum - error);
    const double high = type == trncclFloat32 ? sum + error : roundToType(type, sum + error);
    const double y = decoder(dst, i);
    if (y >= low && y <= high) continue;
    std::ostringstream text;
    text.precision(17);
    text << got(i) << " = " << y << ", expected [" << low << ", " << high << "]";
    return text.str();
  }
  return {};
}

TEST_CASE("kernels: PreMulSum matches the double-precision reference on every type and ISA", "[kernels][premulsum]") {
  std::mt19937_64 rng(2024);
  for (trncclDataType_t type : kAllTypes) {
    std::vector<std::vector<std::byte>> sources;
    for (int k = 0; k < kMaxSources; ++k)
      sources.push_back(randomBuffer(type, isFloatType(type) ? Values::Finite : Values::AnyBits, kLargest, rng));
    std::vector<std::byte> dst(kLargest * typeSize(type));
    for (uint64_t scalar : scalarsFor(type)) {
      for (int nsrcs : kSourceCounts) {
        std::vector<const void*> srcs;
        for (int k = 0; k < nsrcs; ++k) srcs.push_back(sources[k].data());
        for (uint64_t mask : kMasks) {
          for (Isa isa : supportedIsas()) {
            for (size_t count : kSizes) {
              reduce(isa, preMulSumArgs(dst.data(), srcs, count, type, scalar, maskFor(mask, nsrcs)));
              INFO(typeName(type) << " scalar " << hex(scalar) << " K=" << nsrcs << " sources " << hex(mask)
                                  << " count=" << count << " on " << isaName(isa));
              REQUIRE(checkAgainstReference(type, srcs, scalar, maskFor(mask, nsrcs), dst.data(), count) == "");
            }
          }
        }
      }
    }
  }
}

RoundingMode roundingMode(Rounding kind) {
  RoundingMode mode;
  mode.kind = kind;
  mode.seed = 0x5EED;
  mode.call = 78;
  mode.firstIndex = 12345;
  return mode;
}

constexpr size_t kCrossCount = 4096 + 61;

std::vector<std::byte> runPreMulSum(Isa isa, trncclDataType_t type, const std::vector<const void*>& srcs,
                                    uint64_t scalar, uint64_t mask, Rounding kind) {
  std::vector<std::byte> dst(kCrossCount * typeSize(type));
  ReduceArgs args = preMulSumArgs(dst.data(), srcs, kCrossCount, type, scalar, mask);
  args.rounding = roundingMode(kind);
  reduce(isa, args);
  return dst;
}

size_t firstDifference(trncclDataType_t type, const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
  for (size_t i = 0; i < kCrossCount; ++i)
    if (bitsAt(type, a.data(), i) != bitsAt(type, b.data(), i)) return i;
  return kCrossCount;
}

TEST_CASE("kernels: every ISA's PreMulSum gives the scalar path's bits, specials included",
          "[kernels][premulsum][cross-isa]") {
  std::mt19937_64 rng(2025);
  for (trncclDataType_t type : kAllTypes) {
    std::vector<std::vector<std::byte>> sources;
    for (int k = 0; k < kMaxSources; ++k) sources.push_back(randomBuffer(type, Values::AnyBits, kCrossCount, rng));
    // Any bits: NaN, infinities, subnormals and zeros among them.
    const std::vector<std::byte> scalars = randomBuffer(type, Values::AnyBits, 6, rng);
    for (size_t j = 0; j < 6; ++j) {
      const uint64_t scalar = bitsAt(type, scalars.data(), j);
      for (int nsrcs : kEverySourceCount) {
        std::vector<const void*> srcs;
        for (int k = 0; k < nsrcs; ++k) srcs.push_back(sources[k].data());
        for (uint64_t mask : kMasks) {
          for (Rounding kind : {Rounding::NearestEven, Rounding::Stochastic}) {
            const auto expected = runPreMulSum(Isa::Scalar, type, srcs, scalar, maskFor(mask, nsrcs), kind);
            for (Isa isa : supportedIsas()) {
              const size_t i =
                  firstDifference(type, runPreMulSum(isa, type, srcs, scalar, maskFor(mask, nsrcs), kind), expected);
              INFO(typeName(type) << " scalar " << hex(scalar) << " K=" << nsrcs << " sources " << hex(mask)
                                  << (kind == Rounding::Stochastic ? " stochastic" : " nearest-even") << " on "
                                  << isaName(isa) << ": element " << i);
              REQUIRE(i == kCrossCount);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("kernels: a narrow type's PreMulSum is the fp32 PreMulSum of its widened values, rounded once",
          "[kernels][premulsum][cross-isa]") {
  std::mt19937_64 rng(2026);
  for (trncclDataType_t type : kNarrowTypes) {
    std::vector<std::vector<std::byte>> sources, widened;
    const auto widen = [&](const void* src, size_t count) {
      std::vector<std::byte> fp32(count * 4);
      convert(Isa::Scalar, convertArgs(fp32.data(), trncclFloat32, src, type, count));
      return fp32;
    };
    for (int k = 0; k < kMaxSources; ++k) {
      sources.push_back(randomBuffer(type, Values::AnyBits, kCrossCount, rng));
      widened.push_back(widen(sources.back().data(), kCrossCount));
    }
    const std::vector<std::byte> scalars = randomBuffer(type, Values::Finite, 4, rng);
    for (size_t j = 0; j < 4; ++j) {
      const uint64_t scalar = bitsAt(type, scalars.data(), j);
      uint64_t scalar32 = 0;
      std::memcpy(&scalar32, widen(&scalar, 1).data(), 4);
      for (int nsrcs : kEverySourceCount) {
        std::vector<const void*> srcs, fp32Srcs;
        for (int k = 0; k < nsrcs; ++k) {
          srcs.push_back(sources[k].data());
          fp32Srcs.push_back(widened[k].data());
        }
        for (uint64_t mask : kMasks) {
          const auto sum32 =
              runPreMulSum(Isa::Scalar, trncclFloat32, fp32Srcs, scalar32, maskFor(mask, nsrcs), Rounding::NearestEven);
          for (Rounding kind : {Rounding::NearestEven, Rounding::Stochastic}) {
            std::vector<std::byte> expected(kCrossCount * typeSize(type));
            ConvertArgs narrow = convertArgs(expected.data(), type, sum32.data(), trncclFloat32, kCrossCount);
            narrow.rounding = roundingMode(kind);
            convert(Isa::Scalar, narrow);
            for (Isa isa : supportedIsas()) {
              const size_t i =
                  firstDifference(type, runPreMulSum(isa, type, srcs, scalar, maskFor(mask, nsrcs), kind), expected);
              INFO(typeName(type) << " scalar " << hex(scalar) << " K=" << nsrcs << " sources " << hex(mask) << " on "
                                  << isaName(isa) << ": element " << i);
              REQUIRE(i == kCrossCount);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("kernels: PreMulSum's arguments are checked", "[kernels][premulsum][arguments]") {
  float a = 1, b = 2, out = 0, scalar = 0.5f;
  const std::vector<const void*> srcs = {&a, &b};
  ReduceArgs args = reduceArgs(&out, srcs, 1, trncclFloat32, trncclMax);
  args.preMultiply.scalar = &scalar;
  args.preMultiply.sources = 1;
  try {
    reduce(args);
    FAIL("PreMulSum with op max was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == trncclInvalidArgument);
    CHECK_THAT(e.what(), Catch::Contains("preMultiply") && Catch::Contains("max"));
  }
  args.op = trncclSum;
  args.preMultiply.sources = 0b100;  // source 2 of two
  try {
    reduce(args);
    FAIL("a scaled source beyond nsrcs was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == trncclInvalidArgument);
    CHECK_THAT(e.what(), Catch::Contains("preMultiply.sources"));
  }
  // In place (dst is source 0), both scaled: 0.5 * 1 + 0.5 * 2.
  out = a;
  const std::vector<const void*> inPlace = {&out, &b};
  args = reduceArgs(&out, inPlace, 1, trncclFloat32, trncclSum);
  args.preMultiply.scalar = &scalar;
  args.preMultiply.sources = 0b11;
  reduce(args);
  CHECK(out == 1.5f);
}

}  // namespace
}  // namespace trnccl::device::kernels::test
