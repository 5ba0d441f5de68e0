// Every ISA path gives the scalar path's bits, for every type, op and
// conversion, in both rounding modes, on data with every kind of value: NaN
// (quiet, signalling, with payloads and signs), +-inf, +-0, subnormals, max.
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/datatype.h"
#include "test_support.h"

namespace trnccl::device::kernels::test {
namespace {

// Not a multiple of any lane count: vector bodies and a tail.
constexpr size_t kCount = 4096 + 61;
// Every source count: 3 .. 8 are each compiled for their count, 1, 2 and
// beyond 8 loop over the sources (kernel_templates.h).
constexpr int kSourceCounts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
constexpr int kMaxSources = 10;
// Stochastic rounding's element index crosses 2^33 inside the buffer (where
// the high word of the pairs that share a hash changes, rounding.h), from an
// odd index (pairs split across vectors).
constexpr uint64_t kFirstIndex = (uint64_t{1} << 33) - 1001;

RoundingMode roundingMode(Rounding kind) {
  RoundingMode mode;
  mode.kind = kind;
  mode.seed = 0x5EED;
  mode.call = 77;
  mode.firstIndex = kFirstIndex;
  return mode;
}

const char* nameOf(Rounding kind) { return kind == Rounding::Stochastic ? "stochastic" : "nearest-even"; }

// The first element where `result` differs from `expected`, or kCount.
size_t firstDifference(trncclDataType_t type, const std::vector<std::byte>& result,
                       const std::vector<std::byte>& expected) {
  for (size_t i = 0; i < kCount; ++i)
    if (bitsAt(type, result.data(), i) != bitsAt(type, expected.data(), i)) return i;
  return kCount;
}

std::vector<std::byte> randomBuffer(trncclDataType_t type, Values values, std::mt19937_64& rng) {
  std::vector<std::byte> buffer(kCount * typeSize(type));
  fillRandom(type, values, buffer.data(), kCount, rng);
  return buffer;
}

std::vector<std::byte> runReduce(Isa isa, trncclDataType_t type, trncclRedOp_t op, const std::vector<const void*>& srcs,
                                 Rounding kind) {
  std::vector<std::byte> dst(kCount * typeSize(type));
  ReduceArgs args = reduceArgs(dst.data(), srcs, kCount, type, op);
  args.avgDivisor = 3;
  args.rounding = roundingMode(kind);
  reduce(isa, args);
  return dst;
}

std::vector<std::byte> runConvert(Isa isa, trncclDataType_t from, trncclDataType_t to,
                                  const std::vector<std::byte>& src, Rounding kind) {
  std::vector<std::byte> dst(kCount * typeSize(to));
  ConvertArgs args = convertArgs(dst.data(), to, src.data(), from, kCount);
  args.rounding = roundingMode(kind);
  convert(isa, args);
  return dst;
}

// The tests below compare every ISA this CPU runs with the scalar path: on
// one that runs none but scalar they would compare it with itself, and pass
// having tested nothing. Say so rather than pass, and name each ISA whose path
// this CPU leaves untested.
TEST_CASE("kernels: the cross-ISA tests have a SIMD path to compare with the scalar one", "[kernels][cross-isa]") {
  std::string isas;
  for (Isa isa : supportedIsas()) isas.append(" ").append(isaName(isa));
  for (Isa isa : kAllIsas)
    if (!isaSupported(isa)) WARN("not tested here: this CPU cannot run the " << isaName(isa) << " kernels");
  INFO("this CPU runs:" << isas);
  CHECK(supportedIsas().size() > 1);
}

TEST_CASE("kernels: every ISA reduces to the scalar path's bits", "[kernels][cross-isa]") {
  std::mt19937_64 rng(42);
  for (trncclDataType_t type : kAllTypes) {
    std::vector<std::vector<std::byte>> sources;
    for (int k = 0; k < kMaxSources; ++k) sources.push_back(randomBuffer(type, Values::AnyBits, rng));
    for (trncclRedOp_t op : kAllOps) {
      for (int nsrcs : kSourceCounts) {
        std::vector<const void*> srcs;
        for (int k = 0; k < nsrcs; ++k) srcs.push_back(sources[k].data());
        for (Rounding kind : {Rounding::NearestEven, Rounding::Stochastic}) {
          const std::vector<std::byte> expected = runReduce(Isa::Scalar, type, op, srcs, kind);
          for (Isa isa : supportedIsas()) {
            const size_t i = firstDifference(type, runReduce(isa, type, op, srcs, kind), expected);
            std::string inputs;
            for (const void* src : srcs) inputs.append(" ").append(hex(bitsAt(type, src, i % kCount)));
            INFO(typeName(type) << " " << opName(op) << " K=" << nsrcs << " " << nameOf(kind) << " on " << isaName(isa)
                                << ": element " << i << ", inputs" << inputs);
            REQUIRE(i == kCount);
          }
        }
      }
    }
  }
}

TEST_CASE("kernels: every ISA converts to the scalar path's bits", "[kernels][cross-isa]") {
  std::mt19937_64 rng(43);
  for (trncclDataType_t from : kFloatTypes) {
    // Wide puts fp32/fp64 inputs around the narrow formats' ranges.
    for (Values values : {Values::AnyBits, Values::Wide}) {
      const std::vector<std::byte> src = randomBuffer(from, values, rng);
      for (trncclDataType_t to : kFloatTypes) {
        for (Rounding kind : {Rounding::NearestEven, Rounding::Stochastic}) {
          const std::vector<std::byte> expected = runConvert(Isa::Scalar, from, to, src, kind);
          for (Isa isa : supportedIsas()) {
            const size_t i = firstDifference(to, runConvert(isa, from, to, src, kind), expected);
            INFO(typeName(from) << " -> " << typeName(to) << " " << nameOf(kind) << " on " << isaName(isa)
                                << ": element " << i << ", input " << hex(bitsAt(from, src.data(), i % kCount)));
            REQUIRE(i == kCount);
          }
        }
      }
    }
  }
}

// Every ISA converts the FP32 values (their bits) to `to` as the scalar path
// does, in one call.
void requireConvertsFp32AsScalar(trncclDataType_t to, const std::vector<uint32_t>& values) {
  const auto run = [&](Isa isa) {
    std::vector<std::byte> dst(values.size() * typeSize(to));
    convert(isa, convertArgs(dst.data(), to, values.data(), trncclFloat32, values.size()));
    return dst;
  };
  const std::vector<std::byte> expected = run(Isa::Scalar);
  for (Isa isa : supportedIsas()) {
    const std::vector<std::byte> result = run(isa);
    size_t i = 0;
    while (i < values.size() && bitsAt(to, result.data(), i) == bitsAt(to, expected.data(), i)) ++i;
    INFO(typeName(to) << " on " << isaName(isa) << ": element " << i << ", input "
                      << hex(i < values.size() ? values[i] : 0));
    REQUIRE(i == values.size());
  }
}

// FP32 values of every exponent and every 24 leading bits (the low 8 bits
// varied), rounded to each narrow format: each ISA's encoder against the
// scalar path's, far beyond what the random buffers reach.
TEST_CASE("kernels: every ISA rounds 2^24 FP32 values spread over every exponent as the scalar path does",
          "[kernels][cross-isa]") {
  std::vector<uint32_t> values(size_t{1} << 24);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<uint32_t>(i << 8) | ((static_cast<uint32_t>(i) * 0x9E3779B1u) >> 24);
  for (trncclDataType_t to : {trncclFloat8e4m3, trncclFloat8e5m2, trncclFloat16, trncclBfloat16})
    requireConvertsFp32AsScalar(to, values);
}

// FP8 nearest even takes a short route for blocks of 64 values whose every
// value is zero or rounds to a normal E4M3 (encoding.h), and declines any
// other block. Blocks of random values in that range (mantissas random, tied,
// or tied but for a bit below FP32's top 16) each with one value at an edge
// of the route (at a position that moves with the block), and blocks with
// none: every ISA against the scalar path.
TEST_CASE(
    "kernels: every ISA encodes FP8 blocks of normal-range values with one edge value each as the scalar path does",
    "[kernels][cross-isa]") {
  constexpr size_t kBlock = 64;
  const float smallestNormal = std::ldexp(1.0f, -6), smallestSubnormal = std::ldexp(1.0f, -9);
  std::vector<float> edges = {0.0f,
                              smallestNormal,
                              smallestNormal - smallestSubnormal / 2,  // a tie between subnormal 7 and 2^-6
                              smallestNormal - smallestSubnormal / 4,
                              std::ldexp(1.0f, -7),
                              std::ldexp(1.875f, -7),
                              std::ldexp(1.9375f, -7),
                              432.0f,  // 448 - half an ulp: a tie, to 448
                              448.0f,
                              464.0f,  // 448 + half an ulp: a tie, to 448
                              480.0f,
                              512.0f,
                              std::ldexp(1.0f, 100),
                              std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::denorm_min(),
                              std::ldexp(1.0f, -118),
                              std::ldexp(1.0f, -125),
                              std::ldexp(1.5f, -127)};
  for (size_t i = 0, n = edges.size(); i < n; ++i) {
    edges.push_back(std::nextafter(edges[i], 0.0f));
    edges.push_back(std::nextafter(edges[i], std::numeric_limits<float>::infinity()));
  }
  std::mt19937_64 rng(46);
  std::vector<uint32_t> values;
  for (size_t e = 0; e <= 2 * edges.size(); ++e) {  // each edge with both signs, then a block of none
    for (size_t j = 0; j < kBlock; ++j) {
      const uint64_t r = rng();
      uint32_t mantissa = static_cast<uint32_t>(r) & 0x7FFFFF;
      if ((r >> 32) % 4 == 1) mantissa = (mantissa & 0x700000) | 0x80000;  // a tie
      if ((r >> 32) % 4 == 2) mantissa = (mantissa & 0x700000) | 0x80000 | (1u << ((r >> 40) % 16));
      const uint32_t exponent = 121 + static_cast<uint32_t>((r >> 48) % 14);  // 2^-6 .. 2^8 (exclusive)
      values.push_back(static_cast<uint32_t>(r >> 63) << 31 | exponent << 23 | mantissa);
    }
    if (e < 2 * edges.size())
      values[values.size() - kBlock + e % kBlock] = std::bit_cast<uint32_t>((e % 2 == 0 ? 1.0f : -1.0f) * edges[e / 2]);
  }
  for (trncclDataType_t to : {trncclFloat8e4m3, trncclFloat8e5m2}) requireConvertsFp32AsScalar(to, values);
}

// The same route in reductions, where E4M3 sums keep fp16's scale: sources
// near one, whose sums of 2 and 8 and their averages it mostly takes.
TEST_CASE("kernels: every ISA reduces FP8 sources near one to the scalar path's bits", "[kernels][cross-isa]") {
  std::mt19937_64 rng(47);
  for (trncclDataType_t type : {trncclFloat8e4m3, trncclFloat8e5m2}) {
    std::vector<std::vector<std::byte>> sources;
    for (int k = 0; k < kMaxSources; ++k) sources.push_back(randomBuffer(type, Values::NearOne, rng));
    for (trncclRedOp_t op : {trncclSum, trncclAvg}) {
      for (int nsrcs : kSourceCounts) {
        std::vector<const void*> srcs;
        for (int k = 0; k < nsrcs; ++k) srcs.push_back(sources[k].data());
        const std::vector<std::byte> expected = runReduce(Isa::Scalar, type, op, srcs, Rounding::NearestEven);
        for (Isa isa : supportedIsas()) {
          const size_t i = firstDifference(type, runReduce(isa, type, op, srcs, Rounding::NearestEven), expected);
          INFO(typeName(type) << " " << opName(op) << " K=" << nsrcs << " on " << isaName(isa) << ": element " << i);
          REQUIRE(i == kCount);
        }
      }
    }
  }
}

// Calls with one or two sources that touch more than the caches hold write
// 16-bit results with non-temporal stores (blocks.h: from 32 MiB; 48 MiB
// here) where the destination is 16-byte aligned, with nearest even: the
// bits are the scalar path's for 64-byte, 16-byte and unaligned
// destinations, and for the tail, streaming or not.
TEST_CASE("kernels: every ISA's streaming stores give the scalar path's bits", "[kernels][cross-isa]") {
  constexpr size_t kTouchedBytes = size_t{48} << 20;
  std::mt19937_64 rng(45);
  // 16-bit results stream with any number of sources, wider ones with more
  // than two (kernel_templates.h); FP8 never.
  for (trncclDataType_t type :
       {trncclBfloat16, trncclFloat16, trncclFloat32, trncclFloat64, trncclInt32, trncclFloat8e4m3}) {
    for (int nsrcs : {2, 8}) {
      const size_t count = kTouchedBytes / ((nsrcs + 1) * typeSize(type)) + 37;
      std::vector<Buffer> sources;
      std::vector<const void*> srcs;
      for (int k = 0; k < nsrcs; ++k) {
        sources.emplace_back(count * typeSize(type), 0);
        fillRandom(type, Values::AnyBits, sources.back().data(), count, rng);
        srcs.push_back(sources.back().data());
      }
      for (Rounding kind : {Rounding::NearestEven, Rounding::Stochastic}) {
        Buffer expected(count * typeSize(type), 0);
        ReduceArgs args = reduceArgs(expected.data(), srcs, count, type, trncclSum);
        args.rounding = roundingMode(kind);
        reduce(Isa::Scalar, args);
        for (size_t offset : {0, 16, 1}) {
          for (Isa isa : supportedIsas()) {
            Buffer dst(count * typeSize(type), offset);
            args.dst = dst.data();
            reduce(isa, args);
            const auto differs = std::memcmp(dst.data(), expected.data(), count * typeSize(type));
            INFO(typeName(type) << " K=" << nsrcs << " " << nameOf(kind) << " on " << isaName(isa)
                                << ", destination at 64-byte boundary + " << offset);
            REQUIRE(differs == 0);
          }
        }
      }
    }
  }
}

// The definition the kernels implement, checked against paths that do not
// share its shortcuts (E4M3 reduces at fp16's scale, see codecs.h): a
// narrow-format reduction is its sources widened to fp32, reduced in fp32
// and rounded once.
TEST_CASE("kernels: a narrow-format reduction is the fp32 reduction of its widened sources, rounded once",
          "[kernels][cross-isa]") {
  std::mt19937_64 rng(44);
  for (trncclDataType_t type : kNarrowTypes) {
    std::vector<std::vector<std::byte>> sources, widened;
    for (int k = 0; k < kMaxSources; ++k) {
      sources.push_back(randomBuffer(type, Values::AnyBits, rng));
      widened.push_back(runConvert(Isa::Scalar, type, trncclFloat32, sources.back(), Rounding::NearestEven));
    }
    for (trncclRedOp_t op : kAllOps) {
      for (int nsrcs : kSourceCounts) {
        std::vector<const void*> srcs, fp32Srcs;
        for (int k = 0; k < nsrcs; ++k) {
          srcs.push_back(sources[k].data());
          fp32Srcs.push_back(widened[k].data());
        }
        const std::vector<std::byte> sum32 = runReduce(Isa::Scalar, trncclFloat32, op, fp32Srcs, Rounding::NearestEven);
        for (Rounding kind : {Rounding::NearestEven, Rounding::Stochastic}) {
          const std::vector<std::byte> expected = runConvert(Isa::Scalar, trncclFloat32, type, sum32, kind);
          for (Isa isa : supportedIsas()) {
            const size_t i = firstDifference(type, runReduce(isa, type, op, srcs, kind), expected);
            INFO(typeName(type) << " " << opName(op) << " K=" << nsrcs << " " << nameOf(kind) << " on " << isaName(isa)
                                << ": element " << i);
            REQUIRE(i == kCount);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace trnccl::device::kernels::test
