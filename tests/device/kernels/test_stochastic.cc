// Stochastic rounding: unbiased, a pure function of (seed, call, element
// index), different for different seeds and calls; and the Neuron
// documentation's example of why it matters.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "base/datatype.h"
#include "device/kernels/formats.h"
#include "reference.h"
#include "test_support.h"

namespace trnccl::device::kernels::test {
namespace {

constexpr size_t kSamples = 100000;

RoundingMode stochastic(uint64_t seed, uint64_t call, uint64_t firstIndex = 0) {
  RoundingMode mode;
  mode.kind = Rounding::Stochastic;
  mode.seed = seed;
  mode.call = call;
  mode.firstIndex = firstIndex;
  return mode;
}

// `count` copies of x converted from FP32 to `type`.
std::vector<uint16_t> convertCopies(Isa isa, trncclDataType_t type, float x, size_t count, const RoundingMode& mode) {
  const std::vector<float> src(count, x);
  std::vector<uint16_t> dst(count);
  ConvertArgs args = convertArgs(dst.data(), type, src.data(), trncclFloat32, count);
  args.rounding = mode;
  convert(isa, args);
  return dst;
}

TEST_CASE("kernels: stochastic rounding is unbiased", "[kernels][stochastic]") {
  for (trncclDataType_t type : kNarrowTypes) {
    const double smallest = decodeCode(type, 1);  // the smallest subnormal
    const double one = 1.0, ulpAtOne = std::ldexp(1.0, -layoutOf(type).mantissaBits);
    struct Interval {
      double low, high;
    };
    // Between 1 and its successor, between 0 and the smallest subnormal, and
    // far below that (more shift than there are random bits).
    for (const Interval between : {Interval{one, one + ulpAtOne}, Interval{0, smallest}}) {
      for (double fraction : {0.25, 0.5, 0.9, 0x1p-10}) {
        for (double sign : {1.0, -1.0}) {
          const double width = between.high - between.low;
          const auto x = static_cast<float>(sign * (between.low + fraction * width));
          const double p = (std::fabs(x) - between.low) / width;  // of rounding away from zero
          // Four standard errors of the mean of kSamples two-point draws.
          const double tolerance = 4 * width * std::sqrt(p * (1 - p) / kSamples);
          for (Isa isa : supportedIsas()) {
            const std::vector<uint16_t> codes = convertCopies(isa, type, x, kSamples, stochastic(9, 1));
            double total = 0;
            for (size_t i = 0; i < kSamples; ++i) total += valueAt(type, codes.data(), i);
            INFO(typeName(type) << " x=" << x << " on " << isaName(isa));
            CHECK(std::fabs(total / kSamples - x) <= tolerance);
          }
        }
      }
    }
  }
}

TEST_CASE("kernels: stochastic rounding depends only on seed, call and element index", "[kernels][stochastic]") {
  const float x = 1.0f + 0x1p-11f;  // half way between two fp16 values
  const size_t n = 10000, half = n / 2;
  for (Isa isa : supportedIsas()) {
    INFO(isaName(isa));
    const std::vector<uint16_t> whole = convertCopies(isa, trncclFloat16, x, n, stochastic(1, 2, 500));
    CHECK(convertCopies(isa, trncclFloat16, x, n, stochastic(1, 2, 500)) == whole);
    // The same elements in two calls, each with its global first index.
    std::vector<uint16_t> split = convertCopies(isa, trncclFloat16, x, half, stochastic(1, 2, 500));
    const std::vector<uint16_t> second = convertCopies(isa, trncclFloat16, x, n - half, stochastic(1, 2, 500 + half));
    split.insert(split.end(), second.begin(), second.end());
    CHECK(split == whole);
    // Another seed, another call: about half the elements round the other way.
    for (const RoundingMode& other : {stochastic(3, 2, 500), stochastic(1, 3, 500)}) {
      const std::vector<uint16_t> different = convertCopies(isa, trncclFloat16, x, n, other);
      size_t differing = 0;
      for (size_t i = 0; i < n; ++i) differing += different[i] != whole[i];
      CHECK(differing > n / 3);
      CHECK(differing < 2 * n / 3);
    }
  }
}

// The definition of the random bits (docs/kernels.md), written out here:
// key = splitmix64(seed ^ splitmix64(call)); element i's 16 bits are half
// (i & 1) (the low half for even i) of
// lowbias32(low(i / 2) ^ lowbias32(high(i / 2) ^ key.high) ^ key.low).
uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint32_t lowbias32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

uint32_t randomBits(uint64_t seed, uint64_t call, uint64_t index) {
  const uint64_t key = splitmix64(seed ^ splitmix64(call));
  const auto keyLow = static_cast<uint32_t>(key), keyHigh = static_cast<uint32_t>(key >> 32);
  const uint64_t pair = index / 2;
  const uint32_t hash =
      lowbias32(static_cast<uint32_t>(pair) ^ lowbias32(static_cast<uint32_t>(pair >> 32) ^ keyHigh) ^ keyLow);
  return index % 2 == 0 ? hash & 0xFFFF : hash >> 16;
}

TEST_CASE("kernels: stochastic rounding's random bits are the documented hash of seed, call and index",
          "[kernels][stochastic]") {
  // fp16 1 + 2^-12 (a quarter ulp) rounds up exactly when the element's top
  // 13 random bits reach 0x1800. The calls start at odd and even indices
  // (the pairs split across vectors or not) and cross 2^32 (the pair's low
  // word's top bit) and 2^33 (where the pair's high word changes inside a
  // vector).
  const float x = 1.0f + 0x1p-12f;
  const uint64_t seed = 0xC0FFEE, call = 12345;
  const size_t n = 100;
  for (uint64_t first :
       {uint64_t{0}, uint64_t{7}, (uint64_t{1} << 32) - 41, (uint64_t{1} << 33) - 40, (uint64_t{1} << 33) - 41}) {
    for (Isa isa : supportedIsas()) {
      INFO(isaName(isa) << " first index " << first);
      const std::vector<uint16_t> codes = convertCopies(isa, trncclFloat16, x, n, stochastic(seed, call, first));
      for (size_t i = 0; i < n; ++i) {
        const bool up = (randomBits(seed, call, first + i) >> 3) >= 0x1800u;
        INFO("index " << first + i);
        REQUIRE(codes[i] == (up ? 0x3C01 : 0x3C00));
      }
    }
  }
}

// SIMD paths round whole vectors stochastically through the hardware only
// when every lane is zero or in the format's normal range: vectors made of
// one value each, at and around the edges of that range (the smallest normal,
// the largest finite), must still give the scalar path's bits.
TEST_CASE("kernels: stochastic rounding at the edges of the normal range gives the scalar path's bits, on every ISA",
          "[kernels][stochastic]") {
  constexpr size_t kCopies = 64;  // whole vectors of each value
  for (trncclDataType_t type : kNarrowTypes) {
    const double smallestNormal = std::ldexp(1.0, 1 - layoutOf(type).bias);
    const std::vector<double> values = finiteValues(type);
    const double largest = values.back(), beyondLargest = largest + (largest - values[values.size() - 2]) / 2;
    std::vector<float> inputs;
    for (double edge : {0.0, smallestNormal, 0.7 * smallestNormal, largest, beyondLargest, 2 * largest}) {
      for (double sign : {1.0, -1.0}) {
        const auto x = static_cast<float>(sign * edge);
        for (float value : {x, std::nextafter(x, 0.0f), std::nextafter(x, 2 * x)})
          inputs.insert(inputs.end(), kCopies, value);
      }
    }
    const RoundingMode mode = stochastic(5, 6, 7);
    std::vector<uint16_t> expected(inputs.size());
    ConvertArgs args = convertArgs(expected.data(), type, inputs.data(), trncclFloat32, inputs.size());
    args.rounding = mode;
    convert(Isa::Scalar, args);
    for (Isa isa : supportedIsas()) {
      std::vector<uint16_t> out(inputs.size());
      args.dst = out.data();
      convert(isa, args);
      for (size_t i = 0; i < inputs.size(); ++i) {
        INFO(typeName(type) << " on " << isaName(isa) << " input " << inputs[i] << " at " << i);
        REQUIRE(bitsAt(type, out.data(), i) == bitsAt(type, expected.data(), i));
      }
    }
  }
}

// fp16 1024 + 0.5, 2048 times; each addition is one 2-source reduction with
// the call number as the iteration.
double accumulateHalves(Isa isa, const RoundingMode& base) {
  uint16_t value = 0x6400;  // 1024
  const uint16_t half = 0x3800;
  for (uint64_t call = 0; call < 2048; ++call) {
    const std::vector<const void*> srcs = {&value, &half};
    ReduceArgs args = reduceArgs(&value, srcs, 1, trncclFloat16, trncclSum);
    args.rounding = base;
    args.rounding.call = call;
    reduce(isa, args);
  }
  return valueAt(trncclFloat16, &value, 0);
}

TEST_CASE("kernels: adding 0.5 to fp16 1024 2048 times: stuck with RNE, about 2048 with SR", "[kernels][stochastic]") {
  constexpr int kSeeds = 8;
  for (Isa isa : supportedIsas()) {
    INFO(isaName(isa));
    CHECK(accumulateHalves(isa, RoundingMode{}) == 1024.0);
    // One run's standard deviation is about 25 (1.2%): each run must be
    // within 5%, the mean of 8 runs within 1%.
    double total = 0;
    for (int seed = 0; seed < kSeeds; ++seed) {
      const double result = accumulateHalves(isa, stochastic(seed, 0));
      INFO("seed " << seed << ": " << result);
      CHECK(std::fabs(result - 2048.0) <= 0.05 * 2048.0);
      total += result;
    }
    INFO("mean " << total / kSeeds);
    CHECK(std::fabs(total / kSeeds - 2048.0) <= 0.01 * 2048.0);
  }
}

}  // namespace
}  // namespace trnccl::device::kernels::test
