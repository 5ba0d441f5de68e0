// formats.h's scalar conversions, against the format definitions: the
// reference decoder checked on hand-computed values, then every code of every
// narrow format, then rounding of random FP32 values.
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "device/kernels/formats.h"
#include "reference.h"
#include "test_support.h"

namespace trnccl::device::kernels::test {
namespace {

Format formatOf(trncclDataType_t type) { return *narrowFormat(type); }

bool sameValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

TEST_CASE("kernels: reference decoder gives the hand-computed values", "[kernels][formats]") {
  struct Case {
    trncclDataType_t type;
    uint32_t code;
    double value;
  };
  const Case cases[] = {
      {trncclFloat8e4m3, 0x00, 0.0},       {trncclFloat8e4m3, 0x01, 0x1p-9},   {trncclFloat8e4m3, 0x07, 7 * 0x1p-9},
      {trncclFloat8e4m3, 0x08, 0x1p-6},    {trncclFloat8e4m3, 0x38, 1.0},      {trncclFloat8e4m3, 0x3A, 1.25},
      {trncclFloat8e4m3, 0x7E, 448.0},     {trncclFloat8e4m3, 0xFE, -448.0},   {trncclFloat8e4m3, 0x78, 256.0},
      {trncclFloat8e4m3, 0xB8, -1.0},      {trncclFloat8e5m2, 0x01, 0x1p-16},  {trncclFloat8e5m2, 0x03, 3 * 0x1p-16},
      {trncclFloat8e5m2, 0x04, 0x1p-14},   {trncclFloat8e5m2, 0x3C, 1.0},      {trncclFloat8e5m2, 0x3D, 1.25},
      {trncclFloat8e5m2, 0x7B, 57344.0},   {trncclFloat8e5m2, 0x7C, INFINITY}, {trncclFloat8e5m2, 0xFC, -INFINITY},
      {trncclFloat16, 0x3C00, 1.0},        {trncclFloat16, 0x0001, 0x1p-24},   {trncclFloat16, 0x0400, 0x1p-14},
      {trncclFloat16, 0x7BFF, 65504.0},    {trncclFloat16, 0xC000, -2.0},      {trncclFloat16, 0x7C00, INFINITY},
      {trncclBfloat16, 0x3F80, 1.0},       {trncclBfloat16, 0x0001, 0x1p-133}, {trncclBfloat16, 0x7F7F, 0x1.FEp127},
      {trncclBfloat16, 0xFF80, -INFINITY},
  };
  for (const Case& c : cases) {
    INFO("type " << c.type << " code " << hex(c.code));
    CHECK(sameValue(decodeCode(c.type, c.code), c.value));
  }
  CHECK(std::isnan(decodeCode(trncclFloat8e4m3, 0x7F)));
  CHECK(std::isnan(decodeCode(trncclFloat8e4m3, 0xFF)));
  for (uint32_t code : {0x7Du, 0x7Eu, 0x7Fu, 0xFDu, 0xFEu, 0xFFu})
    CHECK(std::isnan(decodeCode(trncclFloat8e5m2, code)));
  CHECK(finiteValues(trncclFloat8e4m3).size() == 253);  // 256 - 2 NaN - (-0)
  CHECK(finiteValues(trncclFloat8e5m2).size() == 247);  // 256 - 6 NaN - 2 inf - (-0)
}

TEST_CASE("kernels: decode matches the format definition for every code", "[kernels][formats]") {
  for (trncclDataType_t type : kNarrowTypes) {
    const uint32_t codes = 1u << spec(formatOf(type)).bits();
    for (uint32_t code = 0; code < codes; ++code) {
      INFO("type " << type << " code " << hex(code));
      REQUIRE(sameValue(decode(formatOf(type), code), decodeCode(type, code)));
    }
  }
}

TEST_CASE("kernels: encoding a code's value gives the code back, and NaN gives the canonical NaN",
          "[kernels][formats]") {
  for (trncclDataType_t type : kNarrowTypes) {
    const Format format = formatOf(type);
    const uint32_t codes = 1u << spec(format).bits();
    for (uint32_t code = 0; code < codes; ++code) {
      const float value = decode(format, code);
      const uint32_t expected = std::isnan(value) ? spec(format).nanCode() : code;
      INFO("type " << type << " code " << hex(code));
      REQUIRE(encodeNearestEven(format, value) == expected);
    }
  }
}

TEST_CASE("kernels: round-to-nearest-even of random FP32 values matches the reference", "[kernels][formats]") {
  std::mt19937_64 rng(7);
  for (trncclDataType_t type : kNarrowTypes) {
    const Format format = formatOf(type);
    for (Values values : {Values::AnyBits, Values::Wide}) {
      for (int n = 0; n < 200000; ++n) {
        uint32_t bits = 0;
        fillRandom(trncclFloat32, values, &bits, 1, rng);
        const float x = std::bit_cast<float>(bits);
        const uint32_t code = encodeNearestEven(format, x);
        INFO("type " << type << " input " << hex(bits) << " code " << hex(code));
        REQUIRE(sameValue(decodeCode(type, code), roundToType(type, x)));
        if (std::isnan(decodeCode(type, code))) REQUIRE(code == spec(format).nanCode());
      }
    }
  }
}

TEST_CASE("kernels: stochastic encoding picks one of the two neighbours by the random bits", "[kernels][formats]") {
  // 1 + 1/4 ulp in fp16: rounds up when the word's top 13 bits reach 3/4 of 2^13.
  const float x = 1.0f + 0x1p-12f;
  CHECK(encodeStochastic(Format::Fp16, x, 0) == 0x3C00);
  CHECK(encodeStochastic(Format::Fp16, x, 0xBFFFFFFF) == 0x3C00);
  CHECK(encodeStochastic(Format::Fp16, x, 0xC0000000) == 0x3C01);
  CHECK(encodeStochastic(Format::Fp16, x, 0x0007FFFF) == 0x3C00);   // only the top 13 bits count
  CHECK(encodeStochastic(Format::Fp16, -x, 0xC0000000) == 0xBC01);  // magnitude rounds up
  // bf16 drops 16 bits: 1 + 1/4 ulp rounds up from the word's top 16 bits' 0xC000.
  const float y = 1.0f + 0x1p-9f;
  CHECK(encodeStochastic(Format::Bf16, y, 0xBFFFFFFF) == 0x3F80);
  CHECK(encodeStochastic(Format::Bf16, y, 0xC0000000) == 0x3F81);
  // e5m2 drops 21 bits: 1 + 1/4 ulp (2^-4) rounds up from the top 21 bits' 3/4.
  CHECK(encodeStochastic(Format::E5m2, 1.0f + 0x1p-4f, 0xBFFFF800) == 0x3C);
  CHECK(encodeStochastic(Format::E5m2, 1.0f + 0x1p-4f, 0xC0000000) == 0x3D);
  CHECK(encodeStochastic(Format::Fp16, 1.0f, 0xFFFFFFFF) == 0x3C00);  // exact stays exact
  CHECK(encodeStochastic(Format::E4m3, 460.0f, 0xFFFFFFFF) == 0x7E);  // 480 saturates, no NaN
  CHECK(encodeStochastic(Format::E5m2, 57344.0f + 4096.0f, 0xFFFFFFFF) == 0x7C);
  CHECK(encodeStochastic(Format::Bf16, std::bit_cast<float>(0x7FA00000u), 0) == 0x7FC0);
}

}  // namespace
}  // namespace trnccl::device::kernels::test
