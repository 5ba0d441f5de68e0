#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "logic/minifloat.h"

using namespace trnccl::perf;

TEST_CASE("half encodes as IEEE binary16 with round to nearest even", "[perf][minifloat]") {
  CHECK(encode_minifloat(1.0, kHalf) == 0x3C00);
  CHECK(encode_minifloat(-2.0, kHalf) == 0xC000);
  CHECK(encode_minifloat(0.0, kHalf) == 0x0000);
  CHECK(encode_minifloat(-0.0, kHalf) == 0x8000);
  CHECK(encode_minifloat(65504.0, kHalf) == 0x7BFF);
  CHECK(encode_minifloat(65520.0, kHalf) == 0x7C00);               // rounds up past the largest finite: inf
  CHECK(encode_minifloat(std::ldexp(1.0, -24), kHalf) == 0x0001);  // smallest subnormal
  CHECK(encode_minifloat(std::ldexp(1.0, -14), kHalf) == 0x0400);  // smallest normal
  CHECK(encode_minifloat(2049.0, kHalf) == 0x6800);                // tie between 2048 and 2050: even (2048)
  CHECK(encode_minifloat(2051.0, kHalf) == 0x6802);                // tie between 2050 and 2052: even (2052)
  CHECK(encode_minifloat(std::numeric_limits<double>::infinity(), kHalf) == 0x7C00);
  CHECK((encode_minifloat(std::nan(""), kHalf) & 0x7C00) == 0x7C00);
}

TEST_CASE("bfloat16 encodes as the top half of a float, rounded to nearest even", "[perf][minifloat]") {
  CHECK(encode_minifloat(1.0, kBfloat16) == 0x3F80);
  CHECK(encode_minifloat(1.0 + std::ldexp(1.0, -8), kBfloat16) == 0x3F80);      // tie: even
  CHECK(encode_minifloat(1.0 + 3 * std::ldexp(1.0, -8), kBfloat16) == 0x3F82);  // tie: even (up)
  CHECK(encode_minifloat(-3.0, kBfloat16) == 0xC040);
  CHECK(encode_minifloat(257.0, kBfloat16) == 0x4380);  // 257 is not exact: 256
}

TEST_CASE("f8e4m3 (OCP FN) has no inf and 448 as its largest value", "[perf][minifloat]") {
  CHECK(encode_minifloat(1.0, kFloat8e4m3) == 0x38);
  CHECK(encode_minifloat(0.5, kFloat8e4m3) == 0x30);
  CHECK(encode_minifloat(448.0, kFloat8e4m3) == 0x7E);
  CHECK(encode_minifloat(-448.0, kFloat8e4m3) == 0xFE);
  CHECK(encode_minifloat(464.0, kFloat8e4m3) == 0x7E);  // tie with the NaN code: even (448)
  CHECK(encode_minifloat(500.0, kFloat8e4m3) == 0x7F);  // overflow: NaN
  CHECK(encode_minifloat(std::ldexp(1.0, -9), kFloat8e4m3) == 0x01);
  CHECK(encode_minifloat(17.0, kFloat8e4m3) == 0x58);  // tie between 16 and 18: even (16)
  CHECK(decode_minifloat(0x7E, kFloat8e4m3) == 448.0);
  CHECK(decode_minifloat(0x78, kFloat8e4m3) == 256.0);  // exponent all ones is a number here
  CHECK(std::isnan(decode_minifloat(0x7F, kFloat8e4m3)));
}

TEST_CASE("f8e5m2 is IEEE-like with inf", "[perf][minifloat]") {
  CHECK(encode_minifloat(1.0, kFloat8e5m2) == 0x3C);
  CHECK(encode_minifloat(5.0, kFloat8e5m2) == 0x45);
  CHECK(encode_minifloat(57344.0, kFloat8e5m2) == 0x7B);
  CHECK(encode_minifloat(65536.0, kFloat8e5m2) == 0x7C);
  CHECK(std::isinf(decode_minifloat(0xFC, kFloat8e5m2)));
  CHECK(decode_minifloat(0xFC, kFloat8e5m2) < 0);
  CHECK(std::isnan(decode_minifloat(0x7D, kFloat8e5m2)));
  CHECK(decode_minifloat(0x01, kFloat8e5m2) == std::ldexp(1.0, -16));
}

TEST_CASE("every finite code decodes to a value that encodes back to it", "[perf][minifloat]") {
  for (MinifloatFormat format : {kHalf, kBfloat16, kFloat8e4m3, kFloat8e5m2}) {
    const uint32_t codes = 1u << (1 + format.exponent_bits + format.mantissa_bits);
    for (uint32_t code = 0; code < codes; ++code) {
      const double value = decode_minifloat(code, format);
      if (std::isnan(value)) continue;
      INFO("format e" << format.exponent_bits << "m" << format.mantissa_bits << " code " << code);
      REQUIRE(encode_minifloat(value, format) == code);
    }
  }
}
