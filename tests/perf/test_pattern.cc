#include <catch2/catch.hpp>
#include <cmath>

#include "logic/pattern.h"
#include "logic/value_codec.h"
#include "nccl_tests/datatypes.h"

using namespace trnccl::perf;

namespace {

ExpectedValue reduce(trncclDataType_t type, trncclRedOp_t op, int nranks, size_t index) {
  return reduced_value({type, op, nranks}, index);
}

}  // namespace

TEST_CASE("sums of two float ranks are hand-checkable", "[perf][pattern]") {
  // float, 2 ranks: inputs (3 * rank + index) % 101
  CHECK(input_value({trncclFloat32, trncclSum, 2}, 0, 5) == 5);
  CHECK(input_value({trncclFloat32, trncclSum, 2}, 1, 5) == 8);
  CHECK(reduce(trncclFloat32, trncclSum, 2, 5).value == 13);
  CHECK(reduce(trncclFloat32, trncclSum, 2, 5).tolerance == 0);
  CHECK(reduce(trncclFloat32, trncclSum, 2, 5 + kPatternPeriod).value == 13);  // periodic
}

TEST_CASE("sum of 4 ranks at index 7, for every type", "[perf][pattern]") {
  // Inputs 7, 10, 13, 16 reduced modulo what keeps 4-rank sums exact:
  // 32 (int8), 64 (uint8), 65 (bfloat16), 5 (f8e4m3), 3 (f8e5m2), else 101.
  const std::pair<trncclDataType_t, double> expected[] = {
      {trncclInt8, 46},    {trncclUint8, 46},    {trncclInt32, 46},     {trncclUint32, 46},
      {trncclInt64, 46},   {trncclUint64, 46},   {trncclFloat16, 46},   {trncclFloat32, 46},
      {trncclFloat64, 46}, {trncclBfloat16, 46}, {trncclFloat8e4m3, 6}, {trncclFloat8e5m2, 4}};
  for (const auto& [type, sum] : expected) {
    INFO("type " << type_name(type));
    const ExpectedValue got = reduce(type, trncclSum, 4, 7);
    CHECK(got.value == sum);
    CHECK(got.tolerance == 0);
  }
}

TEST_CASE("prod, max and min of two ranks", "[perf][pattern]") {
  // prod: rank r gives 2 where (r + index) % 4 == 0, else 1.
  CHECK(reduce(trncclInt32, trncclProd, 2, 0).value == 2);
  CHECK(reduce(trncclInt32, trncclProd, 2, 1).value == 1);
  CHECK(reduce(trncclInt32, trncclProd, 2, 3).value == 2);
  CHECK(reduce(trncclFloat8e4m3, trncclProd, 8, 0).value == 4);  // ranks 0 and 4
  // max/min: (37 * rank + 11 * index) % 101 -> 22 and 59 at index 2.
  CHECK(reduce(trncclFloat32, trncclMax, 2, 2).value == 59);
  CHECK(reduce(trncclFloat32, trncclMin, 2, 2).value == 22);
  // f8e5m2 keeps them below 9: 22 % 9 = 4, 59 % 9 = 5.
  CHECK(reduce(trncclFloat8e5m2, trncclMax, 2, 2).value == 5);
  CHECK(reduce(trncclFloat8e5m2, trncclMin, 2, 2).value == 4);
}

TEST_CASE("avg truncates for integers and allows one ulp for floats", "[perf][pattern]") {
  // 2 ranks at index 0: 0 and 3.
  const ExpectedValue integer = reduce(trncclInt8, trncclAvg, 2, 0);
  CHECK(integer.value == 1);
  CHECK(integer.tolerance == 0);
  const ExpectedValue half = reduce(trncclFloat16, trncclAvg, 2, 0);
  CHECK(half.value == 1.5);
  CHECK(half.tolerance == std::ldexp(1.0, -10));
  const ExpectedValue e4m3 = reduce(trncclFloat8e4m3, trncclAvg, 2, 0);
  CHECK(e4m3.value == 1.5);
  CHECK(e4m3.tolerance == 0.125);
}

TEST_CASE("more ranks than exact integers still give exact sums", "[perf][pattern]") {
  // f8e5m2 is exact up to 8: with 16 ranks, every second rank adds a 1 or a 0.
  for (size_t index = 0; index < kPatternPeriod; ++index) {
    const ExpectedValue sum = reduce(trncclFloat8e5m2, trncclSum, 16, index);
    INFO("index " << index);
    CHECK(sum.value == 8);
  }
  CHECK(input_value({trncclFloat8e5m2, trncclSum, 16}, 1, 0) == 0);
  CHECK(input_value({trncclFloat8e5m2, trncclSum, 16}, 2, 0) == 1);
}

TEST_CASE("every input and every reduction is exact in its type", "[perf][pattern]") {
  for (trncclDataType_t type : parse_types("all")) {
    for (trncclRedOp_t op : parse_ops("all")) {
      for (int nranks : {1, 2, 3, 8, 16}) {
        for (size_t index = 0; index < kPatternPeriod; ++index) {
          const PatternSpec spec{type, op, nranks};
          const double reduced = reduced_value(spec, index).value;
          INFO(type_name(type) << " " << op_name(op) << " nranks " << nranks << " index " << index);
          if (op != trncclAvg) REQUIRE(reduced <= exact_integer_limit(type));
          std::byte element[8];
          for (int rank = 0; rank < nranks; ++rank) {
            const double input = input_value(spec, rank, index);
            encode_value(type, input, element);
            REQUIRE(decode_value(type, element) == input);
          }
        }
      }
    }
  }
}

TEST_CASE("data-movement inputs tell ranks apart", "[perf][pattern]") {
  for (trncclDataType_t type : parse_types("all")) {
    const PatternSpec spec{type, std::nullopt, 8};
    for (int a = 0; a < 8; ++a) {
      for (int b = a + 1; b < 8; ++b) {
        INFO(type_name(type) << " ranks " << a << " and " << b);
        CHECK(input_value(spec, a, 0) != input_value(spec, b, 0));
      }
    }
  }
}
