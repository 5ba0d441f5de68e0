// Exact bits of round-to-nearest-even at the hard places: ties both ways,
// subnormals, the edges of the subnormal range, max finite, overflow, NaN.
// Each FP32 -> format case runs through formats.h and through convert() on
// every ISA (the same store reduce uses); the reduce cases add two values of
// the type in FP32 and round the sum.
#include <bit>
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

struct EncodeCase {
  trncclDataType_t type;
  float value;
  uint32_t code;
};

float bitsToFloat(uint32_t bits) { return std::bit_cast<float>(bits); }

const float kInf = bitsToFloat(0x7F800000);

const EncodeCase kEncodeCases[] = {
    // fp16: ties to even, down and up; just above a tie.
    {trncclFloat16, 1.0f, 0x3C00},
    {trncclFloat16, 1.0f + 0x1p-11f, 0x3C00},
    {trncclFloat16, 1.0f + 3 * 0x1p-11f, 0x3C02},
    {trncclFloat16, -(1.0f + 3 * 0x1p-11f), 0xBC02},
    {trncclFloat16, 1.0f + 0x1p-11f + 0x1p-20f, 0x3C01},
    // fp16 subnormals: the smallest, ties with zero and between codes, signed zero.
    {trncclFloat16, 0x1p-24f, 0x0001},
    {trncclFloat16, 0x1p-25f, 0x0000},
    {trncclFloat16, 0x1p-25f + 0x1p-35f, 0x0001},
    {trncclFloat16, 3 * 0x1p-25f, 0x0002},
    {trncclFloat16, -0x1p-26f, 0x8000},
    {trncclFloat16, 0x1p-140f, 0x0000},
    {trncclFloat16, -0x1p-149f, 0x8000},
    // fp16 across the subnormal/normal edge.
    {trncclFloat16, 1023.5f * 0x1p-24f, 0x0400},
    {trncclFloat16, 1023.25f * 0x1p-24f, 0x03FF},
    {trncclFloat16, 1023.75f * 0x1p-24f, 0x0400},
    // fp16 max finite, max + half ulp (a tie: to infinity), overflow, specials.
    {trncclFloat16, 65504.0f, 0x7BFF},
    {trncclFloat16, 65519.0f, 0x7BFF},
    {trncclFloat16, 65520.0f, 0x7C00},
    {trncclFloat16, -65520.0f, 0xFC00},
    {trncclFloat16, 1e10f, 0x7C00},
    {trncclFloat16, kInf, 0x7C00},
    {trncclFloat16, -kInf, 0xFC00},
    {trncclFloat16, bitsToFloat(0x7FC00000), 0x7E00},
    {trncclFloat16, bitsToFloat(0xFFC00001), 0x7E00},
    {trncclFloat16, bitsToFloat(0x7F800001), 0x7E00},
    // bf16: ties, subnormals (FP32 denormals: the hardware path must not flush them).
    {trncclBfloat16, 1.0f + 0x1p-8f, 0x3F80},
    {trncclBfloat16, 1.0f + 3 * 0x1p-8f, 0x3F82},
    {trncclBfloat16, 1.0f + 0x1p-8f + 0x1p-20f, 0x3F81},
    {trncclBfloat16, 0x1p-133f, 0x0001},
    {trncclBfloat16, 0x1p-134f, 0x0000},
    {trncclBfloat16, 3 * 0x1p-134f, 0x0002},
    {trncclBfloat16, 0x1p-134f + 0x1p-149f, 0x0001},
    {trncclBfloat16, bitsToFloat(0x007FFFFF), 0x0080},
    {trncclBfloat16, bitsToFloat(0x007F7FFF), 0x007F},
    {trncclBfloat16, bitsToFloat(0x007F8000), 0x0080},
    {trncclBfloat16, bitsToFloat(0x007E8000), 0x007E},
    {trncclBfloat16, bitsToFloat(0x807E8001), 0x807F},
    // bf16 max finite, the tie above it, FP32 max, specials.
    {trncclBfloat16, bitsToFloat(0x7F7F0000), 0x7F7F},
    {trncclBfloat16, bitsToFloat(0x7F7F7FFF), 0x7F7F},
    {trncclBfloat16, bitsToFloat(0x7F7F8000), 0x7F80},
    {trncclBfloat16, bitsToFloat(0x7F7FFFFF), 0x7F80},
    {trncclBfloat16, kInf, 0x7F80},
    {trncclBfloat16, -kInf, 0xFF80},
    {trncclBfloat16, bitsToFloat(0x7FC00000), 0x7FC0},
    {trncclBfloat16, bitsToFloat(0xFF800001), 0x7FC0},
    // E4M3: ties, subnormals, the subnormal/normal edge.
    {trncclFloat8e4m3, 1.0f, 0x38},
    {trncclFloat8e4m3, 1.0625f, 0x38},
    {trncclFloat8e4m3, 1.1875f, 0x3A},
    {trncclFloat8e4m3, -1.1875f, 0xBA},
    {trncclFloat8e4m3, 0x1p-9f, 0x01},
    {trncclFloat8e4m3, 0x1p-10f, 0x00},
    {trncclFloat8e4m3, 3 * 0x1p-10f, 0x02},
    {trncclFloat8e4m3, 0x1p-10f + 0x1p-20f, 0x01},
    {trncclFloat8e4m3, 7.5f * 0x1p-9f, 0x08},
    {trncclFloat8e4m3, 7.25f * 0x1p-9f, 0x07},
    // E4M3 top: 416, the tie 432 (to 448), max 448, the tie 464 (to 448),
    // saturation beyond, and infinity/NaN to NaN.
    {trncclFloat8e4m3, 416.0f, 0x7D},
    {trncclFloat8e4m3, 432.0f, 0x7E},
    {trncclFloat8e4m3, 448.0f, 0x7E},
    {trncclFloat8e4m3, 464.0f, 0x7E},
    {trncclFloat8e4m3, 465.0f, 0x7E},
    {trncclFloat8e4m3, 1e9f, 0x7E},
    {trncclFloat8e4m3, -1e9f, 0xFE},
    {trncclFloat8e4m3, kInf, 0x7F},
    {trncclFloat8e4m3, -kInf, 0x7F},
    {trncclFloat8e4m3, bitsToFloat(0xFFC00000), 0x7F},
    // E5M2: ties, subnormals, the subnormal/normal edge, max, overflow, specials.
    {trncclFloat8e5m2, 1.0f, 0x3C},
    {trncclFloat8e5m2, 1.125f, 0x3C},
    {trncclFloat8e5m2, 1.375f, 0x3E},
    {trncclFloat8e5m2, 0x1p-16f, 0x01},
    {trncclFloat8e5m2, 0x1p-17f, 0x00},
    {trncclFloat8e5m2, 3 * 0x1p-17f, 0x02},
    {trncclFloat8e5m2, 3.5f * 0x1p-16f, 0x04},
    {trncclFloat8e5m2, 57344.0f, 0x7B},
    {trncclFloat8e5m2, 61439.0f, 0x7B},
    {trncclFloat8e5m2, 61440.0f, 0x7C},
    {trncclFloat8e5m2, -1e9f, 0xFC},
    {trncclFloat8e5m2, kInf, 0x7C},
    {trncclFloat8e5m2, bitsToFloat(0x7F800001), 0x7E},
};

TEST_CASE("kernels: hand-checked round-to-nearest-even cases: formats.h", "[kernels][rounding]") {
  for (const EncodeCase& c : kEncodeCases) {
    INFO(typeName(c.type) << " input " << hex(std::bit_cast<uint32_t>(c.value)));
    CHECK(encodeNearestEven(*narrowFormat(c.type), c.value) == c.code);
  }
}

TEST_CASE("kernels: hand-checked round-to-nearest-even cases: convert on every ISA", "[kernels][rounding]") {
  // Repeated so the cases land in vector bodies and tails alike.
  constexpr size_t kRepeats = 7;
  for (trncclDataType_t type : kNarrowTypes) {
    std::vector<float> inputs;
    std::vector<uint32_t> codes;
    for (size_t r = 0; r < kRepeats; ++r) {
      for (const EncodeCase& c : kEncodeCases) {
        if (c.type != type) continue;
        inputs.push_back(c.value);
        codes.push_back(c.code);
      }
    }
    for (Isa isa : supportedIsas()) {
      std::vector<uint16_t> out(inputs.size());
      convert(isa, convertArgs(out.data(), type, inputs.data(), trncclFloat32, inputs.size()));
      for (size_t i = 0; i < inputs.size(); ++i) {
        INFO(typeName(type) << " on " << isaName(isa) << " input " << hex(std::bit_cast<uint32_t>(inputs[i])));
        CHECK(bitsAt(type, out.data(), i) == codes[i]);
      }
    }
  }
}

// FP8 rounds through fp16 with a sticky bit jammed below its rounding bit:
// every tie between neighbours (subnormals and zero included), exactly and
// with one more bit at each position below it, either side, both signs.
TEST_CASE("kernels: FP8 nearest even sees a single set bit anywhere below the rounding bit, on every ISA",
          "[kernels][rounding]") {
  for (trncclDataType_t type : {trncclFloat8e4m3, trncclFloat8e5m2}) {
    const std::vector<double> values = finiteValues(type);
    std::vector<float> inputs;
    for (size_t v = 0; v + 1 < values.size(); ++v) {
      const double low = values[v], high = values[v + 1], tie = (low + high) / 2;
      for (double sign : {1.0, -1.0}) {
        inputs.push_back(static_cast<float>(sign * tie));
        for (int j = 1; j <= 24; ++j) {
          const double bit = std::ldexp(high - low, -j);
          inputs.push_back(static_cast<float>(sign * (tie + bit)));
          inputs.push_back(static_cast<float>(sign * (tie - bit)));
        }
      }
    }
    for (Isa isa : supportedIsas()) {
      std::vector<uint8_t> out(inputs.size());
      convert(isa, convertArgs(out.data(), type, inputs.data(), trncclFloat32, inputs.size()));
      for (size_t i = 0; i < inputs.size(); ++i) {
        INFO(typeName(type) << " on " << isaName(isa) << " input " << hex(std::bit_cast<uint32_t>(inputs[i])));
        const double result = valueAt(type, out.data(), i), expected = roundToType(type, inputs[i]);
        REQUIRE(result == expected);
        REQUIRE(std::signbit(result) == std::signbit(expected));
      }
    }
  }
}

struct ReduceCase {
  trncclDataType_t type;
  uint32_t a, b;  // codes of the type
  uint32_t sum;
};

const ReduceCase kReduceCases[] = {
    {trncclFloat16, 0x6400, 0x3800, 0x6400},   // 1024 + 0.5: a tie, stays 1024
    {trncclFloat16, 0x6401, 0x3800, 0x6402},   // 1025 + 0.5: a tie, up to 1026
    {trncclFloat16, 0x0001, 0x0001, 0x0002},   // smallest subnormal twice
    {trncclFloat16, 0x7BFF, 0x4C00, 0x7C00},   // 65504 + 16: a tie at max + half ulp
    {trncclFloat16, 0x7BFF, 0x4800, 0x7BFF},   // 65504 + 8
    {trncclFloat16, 0x7C00, 0xFC00, 0x7E00},   // inf + -inf: canonical NaN
    {trncclFloat16, 0x7D00, 0x3C00, 0x7E00},   // signalling NaN + 1
    {trncclBfloat16, 0x3F80, 0x3B80, 0x3F80},  // 1 + 2^-8: a tie, stays 1
    {trncclBfloat16, 0x0001, 0x0001, 0x0002}, {trncclBfloat16, 0x7F7F, 0x7F7F, 0x7F80},
    {trncclBfloat16, 0xFFC1, 0x3F80, 0x7FC0}, {trncclFloat8e4m3, 0x38, 0x18, 0x38},  // 1 + 0.0625: a tie, stays 1
    {trncclFloat8e4m3, 0x03, 0x05, 0x08},  // subnormals summing to the smallest normal
    {trncclFloat8e4m3, 0x7E, 0x58, 0x7E},  // 448 + 16: a tie, stays 448
    {trncclFloat8e4m3, 0x7E, 0x7E, 0x7E},  // 896 saturates
    {trncclFloat8e4m3, 0xFE, 0xFE, 0xFE},     {trncclFloat8e4m3, 0x7F, 0x38, 0x7F},
    {trncclFloat8e5m2, 0x3C, 0x30, 0x3C},  // 1 + 0.125: a tie, stays 1
    {trncclFloat8e5m2, 0x7B, 0x6C, 0x7C},  // 57344 + 4096: to infinity
    {trncclFloat8e5m2, 0x01, 0x02, 0x03},     {trncclFloat8e5m2, 0xFF, 0x3C, 0x7E},
};

TEST_CASE("kernels: hand-checked round-to-nearest-even cases: reduce on every ISA", "[kernels][rounding]") {
  for (const ReduceCase& c : kReduceCases) {
    for (Isa isa : supportedIsas()) {
      uint16_t a = static_cast<uint16_t>(c.a), b = static_cast<uint16_t>(c.b), out = 0;
      reduce(isa, reduceArgs(&out, {&a, &b}, 1, c.type, trncclSum));
      INFO(typeName(c.type) << " " << hex(c.a) << " + " << hex(c.b) << " on " << isaName(isa));
      CHECK(bitsAt(c.type, &out, 0) == c.sum);
    }
  }
}

}  // namespace
}  // namespace trnccl::device::kernels::test
