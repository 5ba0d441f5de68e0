// Bad input to trncclRedOpCreatePreMulSum, trncclRedOpDestroy and to the
// collectives given a PreMulSum operator: every argument refused with
// trncclInvalidArgument and named by trncclGetLastError, the communicator
// still usable after. The calls are made on 1-rank communicators, where a
// valid call completes alone.
#include <catch2/catch.hpp>

#include "bad_input.h"

using namespace trnccl::test;

TEST_CASE("bad input: trncclRedOpCreatePreMulSum and trncclRedOpDestroy", "[bad-input][premulsum]") {
  const trncclComm_t c = oneRank(), other = oneRank();
  float scalar = 0.5f;
  trncclRedOp_t op;
  const auto f = trncclFloat32;
  expectInvalid(trncclRedOpCreatePreMulSum(nullptr, &scalar, f, trncclScalarHostImmediate, c), c, "op");
  expectInvalid(trncclRedOpCreatePreMulSum(&op, nullptr, f, trncclScalarHostImmediate, c), c, "scalar");
  expectInvalid(trncclRedOpCreatePreMulSum(&op, &scalar, static_cast<trncclDataType_t>(12), trncclScalarDevice, c), c,
                "datatype");
  expectInvalid(trncclRedOpCreatePreMulSum(&op, &scalar, f, static_cast<trncclScalarResidence_t>(2), c), c,
                "residence");
  expectInvalid(trncclRedOpCreatePreMulSum(&op, &scalar, f, trncclScalarHostImmediate, nullptr), nullptr, "comm");
  auto* madeUp = reinterpret_cast<trncclComm_t>(&scalar);
  expectInvalid(trncclRedOpCreatePreMulSum(&op, &scalar, f, trncclScalarHostImmediate, madeUp), nullptr, "comm");

  expectInvalid(trncclRedOpDestroy(trncclSum, c), c, "op");  // built in
  expectInvalid(trncclRedOpDestroy(trncclAvg, c), c, "op");
  expectInvalid(trncclRedOpDestroy(trncclNumOps, c), c, "op");  // never created
  expectInvalid(trncclRedOpDestroy(static_cast<trncclRedOp_t>(-1), c), c, "op");
  REQUIRE(trncclRedOpCreatePreMulSum(&op, &scalar, f, trncclScalarHostImmediate, c) == trncclSuccess);
  expectInvalid(trncclRedOpDestroy(op, other), other, "op");  // another communicator's
  expectInvalid(trncclRedOpDestroy(op, nullptr), nullptr, "comm");
  CHECK(trncclRedOpDestroy(op, c) == trncclSuccess);
  expectInvalid(trncclRedOpDestroy(op, c), c, "op");  // twice
  requireUsable(c);
  CHECK(trncclCommDestroy(other) == trncclSuccess);
  CHECK(trncclCommDestroy(c) == trncclSuccess);
}

TEST_CASE("bad input: collectives given a PreMulSum operator they cannot use", "[bad-input][premulsum]") {
  const trncclComm_t c = oneRank(), other = oneRank();
  float b[16] = {}, scalar = 0.5f;
  const size_t counts[1] = {2}, displs[1] = {0};
  trncclRedOp_t op, destroyed;
  REQUIRE(trncclRedOpCreatePreMulSum(&op, &scalar, trncclBfloat16, trncclScalarHostImmediate, c) == trncclSuccess);
  REQUIRE(trncclRedOpCreatePreMulSum(&destroyed, &scalar, trncclFloat32, trncclScalarDevice, c) == trncclSuccess);
  REQUIRE(trncclRedOpDestroy(destroyed, c) == trncclSuccess);
  // Made for bfloat16: every other datatype is refused, naming it.
  expectInvalid(trncclAllReduce(b, b + 8, 2, trncclFloat32, op, c, nullptr), c, "datatype");
  expectInvalid(trncclReduce(b, b + 8, 2, trncclFloat16, op, 0, c, nullptr), c, "datatype");
  expectInvalid(trncclReduceScatter(b, b + 8, 2, trncclFloat32, op, c, nullptr), c, "datatype");
  expectInvalid(trncclReduceScatterV(b, counts, displs, b + 8, 2, trncclFloat32, op, c, nullptr), c, "datatype");
  // Destroyed, or never made on this communicator.
  expectInvalid(trncclAllReduce(b, b + 8, 2, trncclFloat32, destroyed, c, nullptr), c, "op");
  expectInvalid(trncclReduce(b, b + 8, 2, trncclFloat32, destroyed, 0, c, nullptr), c, "op");
  expectInvalid(trncclReduceScatter(b, b + 8, 2, trncclBfloat16, op, other, nullptr), other, "op");
  expectInvalid(trncclReduceScatterV(b, counts, displs, b + 8, 2, trncclFloat32, destroyed, c, nullptr), c, "op");
  CHECK(trncclRedOpDestroy(op, c) == trncclSuccess);
  requireUsable(c);
  CHECK(trncclCommDestroy(other) == trncclSuccess);
  CHECK(trncclCommDestroy(c) == trncclSuccess);
}
