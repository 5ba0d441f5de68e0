// The tests' own reference encodings and reference reductions, checked
// against known bit patterns and against the host's float/double: a wrong
// reference would make every other test here meaningless.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "encoding.h"
#include "values.h"

using namespace trnccl::test;

namespace {

uint64_t enc(trncclDataType_t t, double v) {
  bool ok = false;
  const uint64_t bits = encodeExact(t, v, &ok);
  REQUIRE(ok);
  return bits;
}

bool representable(trncclDataType_t t, double v) {
  bool ok = false;
  encodeExact(t, v, &ok);
  return ok;
}

}  // namespace

TEST_CASE("encoding: known bit patterns of the 16- and 8-bit float types", "[encoding]") {
  CHECK(enc(trncclFloat16, 1.0) == 0x3c00);
  CHECK(enc(trncclFloat16, -2.0) == 0xc000);
  CHECK(enc(trncclFloat16, 65504.0) == 0x7bff);
  CHECK(enc(trncclFloat16, std::ldexp(1.0, -24)) == 0x0001);
  CHECK(std::isinf(decodeFloat(trncclFloat16, 0x7c00)));
  CHECK(std::isnan(decodeFloat(trncclFloat16, 0x7e00)));
  CHECK_FALSE(representable(trncclFloat16, 65505.0));

  CHECK(enc(trncclBfloat16, 1.0) == 0x3f80);
  CHECK(enc(trncclBfloat16, -2.0) == 0xc000);
  CHECK(enc(trncclBfloat16, 3.0) == 0x4040);
  CHECK(std::isinf(decodeFloat(trncclBfloat16, 0x7f80)));
  CHECK_FALSE(representable(trncclBfloat16, 257.0));

  // OCP E4M3: bias 7, no infinities, max 448, NaN only S.1111.111.
  CHECK(enc(trncclFloat8e4m3, 1.0) == 0x38);
  CHECK(enc(trncclFloat8e4m3, 448.0) == 0x7e);
  CHECK(enc(trncclFloat8e4m3, -448.0) == 0xfe);
  CHECK(enc(trncclFloat8e4m3, 256.0) == 0x78);
  CHECK(enc(trncclFloat8e4m3, 16.0) == 0x58);
  CHECK(enc(trncclFloat8e4m3, std::ldexp(1.0, -9)) == 0x01);
  CHECK(decodeFloat(trncclFloat8e4m3, 0x7e) == 448.0);
  CHECK(decodeFloat(trncclFloat8e4m3, 0x78) == 256.0);
  CHECK(std::isnan(decodeFloat(trncclFloat8e4m3, 0x7f)));
  CHECK(std::isnan(decodeFloat(trncclFloat8e4m3, 0xff)));
  CHECK_FALSE(representable(trncclFloat8e4m3, 480.0));
  CHECK_FALSE(representable(trncclFloat8e4m3, 17.0));
  CHECK_FALSE(representable(trncclFloat8e4m3, HUGE_VAL));

  // E5M2: bias 15, IEEE-like (inf and NaN), max 57344.
  CHECK(enc(trncclFloat8e5m2, 1.0) == 0x3c);
  CHECK(enc(trncclFloat8e5m2, 57344.0) == 0x7b);
  CHECK(enc(trncclFloat8e5m2, std::ldexp(1.0, -16)) == 0x01);
  CHECK(enc(trncclFloat8e5m2, -HUGE_VAL) == 0xfc);
  CHECK(std::isinf(decodeFloat(trncclFloat8e5m2, 0x7c)));
  CHECK(std::isnan(decodeFloat(trncclFloat8e5m2, 0x7d)));
  CHECK_FALSE(representable(trncclFloat8e5m2, 9.0));
}

TEST_CASE("encoding: every 8- and 16-bit pattern decodes and re-encodes to itself", "[encoding]") {
  for (trncclDataType_t t : {trncclFloat8e4m3, trncclFloat8e5m2, trncclFloat16, trncclBfloat16}) {
    const uint64_t patterns = uint64_t{1} << (8 * typeInfo(t).bytes);
    int wrong = 0;
    for (uint64_t bits = 0; bits < patterns; ++bits) {
      const double v = decodeFloat(t, bits);
      if (std::isnan(v)) continue;
      bool ok = false;
      if (encodeExact(t, v, &ok) != bits || !ok) ++wrong;
    }
    INFO(dataTypeName(t));
    CHECK(wrong == 0);
  }
}

TEST_CASE("encoding: bf16, fp32 and fp64 agree with the host's float and double", "[encoding]") {
  for (uint64_t bits = 0; bits < 0x10000; ++bits) {
    const uint32_t wide = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &wide, sizeof f);
    if (std::isnan(f)) continue;
    REQUIRE(decodeFloat(trncclBfloat16, bits) == static_cast<double>(f));
  }
  for (uint64_t i = 0; i < 100000; ++i) {
    const uint64_t bits = mixBits(1, 2, 3, i);
    const auto bits32 = static_cast<uint32_t>(bits);
    float f;
    double d;
    std::memcpy(&f, &bits32, sizeof f);
    std::memcpy(&d, &bits, sizeof d);
    if (!std::isnan(f)) {
      REQUIRE(decodeFloat(trncclFloat32, bits32) == static_cast<double>(f));
      REQUIRE(enc(trncclFloat32, f) == bits32);
    }
    if (!std::isnan(d)) {
      REQUIRE(decodeFloat(trncclFloat64, bits) == d);
      REQUIRE(enc(trncclFloat64, d) == bits);
    }
  }
}

TEST_CASE("encoding: ulp at a value", "[encoding]") {
  CHECK(ulpAt(trncclFloat32, 1.0) == std::ldexp(1.0, -23));
  CHECK(ulpAt(trncclFloat32, 1.5) == std::ldexp(1.0, -23));
  CHECK(ulpAt(trncclBfloat16, 3.0) == std::ldexp(1.0, -6));
  CHECK(ulpAt(trncclFloat8e4m3, 1.0) == 0.125);
  CHECK(ulpAt(trncclFloat8e4m3, 0.0) == std::ldexp(1.0, -9));
  CHECK(ulpAt(trncclFloat8e5m2, 5.0) == 1.0);
  CHECK(ulpAt(trncclFloat16, std::ldexp(1.0, -20)) == std::ldexp(1.0, -24));  // subnormal
}

TEST_CASE("reference reductions: wrapping, truncation, signedness, float avg", "[encoding]") {
  std::string expected;
  // int8: 100 + 100 wraps to -56; the average truncates toward zero.
  CHECK(reductionMatches(trncclInt8, trncclSum, {100, 100}, 0xc8, &expected));
  CHECK_FALSE(reductionMatches(trncclInt8, trncclSum, {100, 100}, 0xc7, &expected));
  CHECK(reductionMatches(trncclInt8, trncclAvg, {0xfd, 0xfc}, 0xfd, &expected));               // -7 / 2 = -3
  CHECK(reductionMatches(trncclInt32, trncclAvg, {0xfffffff9, 0, 0}, 0xfffffffe, &expected));  // -7 / 3 = -2
  CHECK(reductionMatches(trncclUint8, trncclAvg, {7, 0}, 3, &expected));
  // Products wrap in the type's width.
  CHECK(reductionMatches(trncclUint32, trncclProd, {0x10000, 0x10001}, 0x10000, &expected));
  CHECK(reductionMatches(trncclInt64, trncclProd, {uint64_t{1} << 63, 2}, 0, &expected));
  // Max and min compare as the type: 0xff is -1 in int8, 255 in uint8.
  CHECK(reductionMatches(trncclInt8, trncclMax, {0xff, 0x01}, 0x01, &expected));
  CHECK(reductionMatches(trncclUint8, trncclMax, {0xff, 0x01}, 0xff, &expected));
  CHECK(reductionMatches(trncclInt64, trncclMin, {~uint64_t{0}, 5}, ~uint64_t{0}, &expected));
  // Floats: exact results bit for bit (by value), avg within one ulp.
  CHECK(reductionMatches(trncclFloat8e4m3, trncclSum, {enc(trncclFloat8e4m3, 2), enc(trncclFloat8e4m3, -0.5)},
                         enc(trncclFloat8e4m3, 1.5), &expected));
  CHECK_FALSE(reductionMatches(trncclBfloat16, trncclMax, {enc(trncclBfloat16, 2), enc(trncclBfloat16, -3)},
                               enc(trncclBfloat16, -3), &expected));
  const uint64_t one = enc(trncclFloat16, 1), two = enc(trncclFloat16, 2);
  CHECK(reductionMatches(trncclFloat16, trncclAvg, {one, one, two}, enc(trncclFloat16, 1.333984375), &expected));
  CHECK_FALSE(reductionMatches(trncclFloat16, trncclAvg, {one, one, two}, enc(trncclFloat16, 1.3359375), &expected));
}

TEST_CASE("reference inputs are exact in their type and keep reductions exact on 8 ranks", "[encoding]") {
  for (trncclDataType_t t : allTypes()) {
    if (!typeInfo(t).isFloat) continue;
    for (trncclRedOp_t op : allOps()) {
      for (size_t i = 0; i < 200; ++i) {
        // Every partial result (the reduction of any subset of the 8 ranks,
        // whatever order an algorithm combines them in) is exactly representable.
        double x[8];
        for (int r = 0; r < 8; ++r) x[r] = decodeFloat(t, reductionInput(t, op, r, i, 5));
        for (unsigned subset = 1; subset < 256; ++subset) {
          double acc = 0;
          bool first = true;
          for (int r = 0; r < 8; ++r) {
            if ((subset >> r & 1) == 0) continue;
            acc = first              ? x[r]
                  : op == trncclProd ? acc * x[r]
                  : op == trncclMax  ? std::max(acc, x[r])
                  : op == trncclMin  ? std::min(acc, x[r])
                                     : acc + x[r];
            first = false;
          }
          if (representable(t, acc)) continue;
          FAIL(dataTypeName(t) << " " << opName(op) << " element " << i << " ranks subset " << subset << ": " << acc
                               << " is not representable");
        }
      }
    }
  }
}
