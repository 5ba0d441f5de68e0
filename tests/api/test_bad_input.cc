// Bad input: every call returns the right code, and trncclGetLastError (of
// the communicator, or of the thread with NULL) names the bad argument. Bad
// calls must not break the communicator. Calls are made on rank 0 only: a
// call that passed validation by mistake would wait for rank 1, and fails
// the test by timing out (TRNCCL_TIMEOUT_MS=5000) instead of hanging.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "bad_input.h"

using namespace trnccl::test;

TEST_CASE("bad input: NULL send or receive buffers", "[bad-input]") {
  trncclComm_t c = oneRank();
  float b[8] = {};
  const auto f = trncclFloat32;
  expectInvalid(trncclAllReduce(nullptr, b, 4, f, trncclSum, c, nullptr), c, "sendbuff");
  expectInvalid(trncclAllReduce(b, nullptr, 4, f, trncclSum, c, nullptr), c, "recvbuff");
  expectInvalid(trncclAllGather(nullptr, b, 4, f, c, nullptr), c, "sendbuff");
  expectInvalid(trncclAllGather(b, nullptr, 4, f, c, nullptr), c, "recvbuff");
  expectInvalid(trncclReduceScatter(nullptr, b, 4, f, trncclMax, c, nullptr), c, "sendbuff");
  expectInvalid(trncclReduceScatter(b, nullptr, 4, f, trncclMax, c, nullptr), c, "recvbuff");
  expectInvalid(trncclBroadcast(nullptr, b, 4, f, 0, c, nullptr), c, "sendbuff");  // the root's is read
  expectInvalid(trncclBroadcast(b, nullptr, 4, f, 0, c, nullptr), c, "recvbuff");
  expectInvalid(trncclReduce(nullptr, b, 4, f, trncclSum, 0, c, nullptr), c, "sendbuff");
  expectInvalid(trncclReduce(b, nullptr, 4, f, trncclSum, 0, c, nullptr), c, "recvbuff");  // the root's is written
  expectInvalid(trncclAlltoAll(nullptr, b, 4, f, c, nullptr), c, "sendbuff");
  expectInvalid(trncclAlltoAll(b, nullptr, 4, f, c, nullptr), c, "recvbuff");
  expectInvalid(trncclSend(nullptr, 4, f, 0, c, nullptr), c, "sendbuff");
  expectInvalid(trncclRecv(nullptr, 4, f, 0, c, nullptr), c, "recvbuff");
  requireUsable(c);
  CHECK(trncclCommDestroy(c) == trncclSuccess);
}

TEST_CASE("bad input: unknown data type and reduction op", "[bad-input]") {
  trncclComm_t c = oneRank();
  float b[8] = {};
  const auto badType = static_cast<trncclDataType_t>(42);
  const auto badOp = static_cast<trncclRedOp_t>(42);
  expectInvalid(trncclAllReduce(b, b + 4, 4, badType, trncclSum, c, nullptr), c, "datatype");
  expectInvalid(trncclAllReduce(b, b + 4, 4, static_cast<trncclDataType_t>(-1), trncclSum, c, nullptr), c, "datatype");
  expectInvalid(trncclAllReduce(b, b + 4, 4, trncclNumTypes, trncclSum, c, nullptr), c, "datatype");
  expectInvalid(trncclAllGather(b, b + 4, 4, badType, c, nullptr), c, "datatype");
  expectInvalid(trncclReduceScatter(b, b + 4, 4, badType, trncclSum, c, nullptr), c, "datatype");
  expectInvalid(trncclBroadcast(b, b + 4, 4, badType, 0, c, nullptr), c, "datatype");
  expectInvalid(trncclReduce(b, b + 4, 4, badType, trncclSum, 0, c, nullptr), c, "datatype");
  expectInvalid(trncclAlltoAll(b, b + 4, 4, badType, c, nullptr), c, "datatype");
  expectInvalid(trncclSend(b, 4, badType, 0, c, nullptr), c, "datatype");
  expectInvalid(trncclRecv(b, 4, badType, 0, c, nullptr), c, "datatype");
  expectInvalid(trncclAllReduce(b, b + 4, 4, trncclFloat32, badOp, c, nullptr), c, "op");
  expectInvalid(trncclAllReduce(b, b + 4, 4, trncclFloat32, trncclNumOps, c, nullptr), c, "op");
  expectInvalid(trncclAllReduce(b, b + 4, 4, trncclFloat32, static_cast<trncclRedOp_t>(-1), c, nullptr), c, "op");
  expectInvalid(trncclReduceScatter(b, b + 4, 4, trncclFloat32, badOp, c, nullptr), c, "op");
  expectInvalid(trncclReduce(b, b + 4, 4, trncclFloat32, badOp, 0, c, nullptr), c, "op");
  requireUsable(c);
  CHECK(trncclCommDestroy(c) == trncclSuccess);
}

TEST_CASE("bad input: root and peer out of range", "[bad-input]") {
  Comms comms;
  const trncclComm_t c = comms[0];
  float b[8] = {};
  const auto f = trncclFloat32;
  expectInvalid(trncclBroadcast(b, b + 4, 4, f, 2, c, nullptr), c, "root");
  expectInvalid(trncclBroadcast(b, b + 4, 4, f, -1, c, nullptr), c, "root");
  expectInvalid(trncclReduce(b, b + 4, 4, f, trncclSum, 2, c, nullptr), c, "root");
  expectInvalid(trncclReduce(b, b + 4, 4, f, trncclSum, -3, c, nullptr), c, "root");
  expectInvalid(trncclSend(b, 4, f, 2, c, nullptr), c, "peer");
  expectInvalid(trncclSend(b, 4, f, -1, c, nullptr), c, "peer");
  expectInvalid(trncclRecv(b, 4, f, 5, c, nullptr), c, "peer");
}

TEST_CASE("bad input: a count whose size in bytes overflows", "[bad-input]") {
  Comms comms;
  const trncclComm_t c = comms[0];
  float b[8] = {};
  const size_t huge = SIZE_MAX, half = SIZE_MAX / 2 + 1;
  expectInvalid(trncclAllReduce(b, b + 4, huge, trncclFloat32, trncclSum, c, nullptr), c, "count");
  expectInvalid(trncclAllReduce(b, b + 4, half, trncclInt64, trncclSum, c, nullptr), c, "count");
  expectInvalid(trncclBroadcast(b, b + 4, huge, trncclFloat32, 0, c, nullptr), c, "count");
  expectInvalid(trncclReduce(b, b + 4, huge, trncclFloat32, trncclSum, 0, c, nullptr), c, "count");
  // Byte size fits for one rank's block, overflows for the two ranks' total.
  expectInvalid(trncclAllGather(b, b + 4, half, trncclInt8, c, nullptr), c, "sendcount");
  expectInvalid(trncclReduceScatter(b, b + 4, half, trncclUint8, trncclSum, c, nullptr), c, "recvcount");
  expectInvalid(trncclAlltoAll(b, b + 4, half, trncclInt8, c, nullptr), c, "count");
  expectInvalid(trncclSend(b, huge, trncclFloat64, 1, c, nullptr), c, "count");
  expectInvalid(trncclRecv(b, huge, trncclFloat16, 1, c, nullptr), c, "count");
}

TEST_CASE("bad input: count 0 is a valid no-op, even with NULL buffers", "[bad-input]") {
  Comms comms;  // only rank 0 calls: a call that communicated would time out
  const trncclComm_t c = comms[0];
  const auto f = trncclFloat32;
  CHECK(trncclAllReduce(nullptr, nullptr, 0, f, trncclSum, c, nullptr) == trncclSuccess);
  CHECK(trncclAllGather(nullptr, nullptr, 0, f, c, nullptr) == trncclSuccess);
  CHECK(trncclReduceScatter(nullptr, nullptr, 0, f, trncclAvg, c, nullptr) == trncclSuccess);
  CHECK(trncclBroadcast(nullptr, nullptr, 0, f, 1, c, nullptr) == trncclSuccess);
  CHECK(trncclReduce(nullptr, nullptr, 0, f, trncclMin, 0, c, nullptr) == trncclSuccess);
  CHECK(trncclAlltoAll(nullptr, nullptr, 0, f, c, nullptr) == trncclSuccess);
  CHECK(trncclSend(nullptr, 0, f, 1, c, nullptr) == trncclSuccess);
  CHECK(trncclRecv(nullptr, 0, f, 1, c, nullptr) == trncclSuccess);
}

TEST_CASE("bad input: trncclCommInitRank arguments", "[bad-input]") {
  trncclUniqueId id;
  REQUIRE(trncclGetUniqueId(&id) == trncclSuccess);
  trncclComm_t comm = nullptr;
  expectInvalid(trncclCommInitRank(&comm, 2, id, 2), nullptr, "rank");
  CHECK(comm == nullptr);
  expectInvalid(trncclCommInitRank(&comm, 2, id, -1), nullptr, "rank");
  expectInvalid(trncclCommInitRank(&comm, 0, id, 0), nullptr, "nranks");
  expectInvalid(trncclCommInitRank(nullptr, 1, id, 0), nullptr, "comm");
  trncclUniqueId zero;
  std::memset(&zero, 0, sizeof zero);
  expectInvalid(trncclCommInitRank(&comm, 1, zero, 0), nullptr, "id");
  CHECK(comm == nullptr);
  expectInvalid(trncclCommInitAll(nullptr, 2, nullptr), nullptr, "comms");
  trncclComm_t comms[1];
  expectInvalid(trncclCommInitAll(comms, 0, nullptr), nullptr, "nranks");
  expectInvalid(trncclGetUniqueId(nullptr), nullptr, "id");
}

TEST_CASE("bad input: NULL, destroyed and aborted communicators", "[bad-input]") {
  float b[8] = {};
  int value = 0;
  expectInvalid(trncclAllReduce(b, b + 4, 4, trncclFloat32, trncclSum, nullptr, nullptr), nullptr, "comm");
  expectInvalid(trncclCommCount(nullptr, &value), nullptr, "comm");
  expectInvalid(trncclCommDestroy(nullptr), nullptr, "comm");

  SECTION("destroyed") {
    trncclComm_t c = oneRank();
    REQUIRE(trncclCommDestroy(c) == trncclSuccess);
    // The library keeps a registry of live handles: using a destroyed one is
    // defined, and an error.
    expectInvalid(trncclAllReduce(b, b + 4, 4, trncclFloat32, trncclSum, c, nullptr), nullptr, "comm");
    expectInvalid(trncclCommCount(c, &value), nullptr, "comm");
    expectInvalid(trncclCommUserRank(c, &value), nullptr, "comm");
    expectInvalid(trncclCommFinalize(c), nullptr, "comm");
    expectInvalid(trncclCommDestroy(c), nullptr, "comm");
  }
  SECTION("aborted") {
    trncclComm_t c = oneRank();
    REQUIRE(trncclCommAbort(c) == trncclSuccess);
    expectInvalid(trncclAllReduce(b, b + 4, 4, trncclFloat32, trncclSum, c, nullptr), nullptr, "comm");
    expectInvalid(trncclSend(b, 4, trncclFloat32, 0, c, nullptr), nullptr, "comm");
    expectInvalid(trncclCommAbort(c), nullptr, "comm");
    expectInvalid(trncclCommDestroy(c), nullptr, "comm");
  }
}

TEST_CASE("bad input: stream handles", "[bad-input]") {
  trncclComm_t c = oneRank();
  float b[8] = {};
  const auto bogus = reinterpret_cast<trncclStream_t>(uintptr_t{0x1234});
  expectInvalid(trncclAllReduce(b, b + 4, 4, trncclFloat32, trncclSum, c, bogus), c, "stream");
  expectInvalid(trncclStreamSynchronize(bogus), nullptr, "stream");
  expectInvalid(trncclStreamQuery(bogus), nullptr, "stream");
  expectInvalid(trncclStreamDestroy(bogus), nullptr, "stream");
  expectInvalid(trncclStreamDestroy(nullptr), nullptr, "stream");
  expectInvalid(trncclStreamCreate(nullptr), nullptr, "stream");
  trncclStream_t destroyed = nullptr;
  REQUIRE(trncclStreamCreate(&destroyed) == trncclSuccess);
  REQUIRE(trncclStreamDestroy(destroyed) == trncclSuccess);
  expectInvalid(trncclBroadcast(b, b + 4, 4, trncclFloat32, 0, c, destroyed), c, "stream");
  requireUsable(c);
  CHECK(trncclCommDestroy(c) == trncclSuccess);
}

TEST_CASE("bad input: trncclGroupEnd without trncclGroupStart", "[bad-input]") {
  expectError(trncclGroupEnd(), trncclInvalidUsage, nullptr, "trncclGroupStart");
  // Balanced groups still work afterwards.
  CHECK(trncclGroupStart() == trncclSuccess);
  CHECK(trncclGroupEnd() == trncclSuccess);
  expectError(trncclGroupEnd(), trncclInvalidUsage, nullptr, "trncclGroupStart");
}

TEST_CASE("bad input: NULL output pointers and foreign memory", "[bad-input]") {
  trncclComm_t c = oneRank();
  expectInvalid(trncclCommCount(c, nullptr), c, "count");
  expectInvalid(trncclCommUserRank(c, nullptr), c, "rank");
  expectInvalid(trncclCommGetAsyncError(c, nullptr), c, "asyncError");
  expectInvalid(trncclCommSplit(c, 0, 0, nullptr, nullptr), c, "newcomm");
  trncclComm_t sub = nullptr;
  expectInvalid(trncclCommSplit(c, -5, 0, &sub, nullptr), c, "color");
  int local = 0;
  expectInvalid(trncclMemFree(&local), nullptr, "ptr");
  expectInvalid(trncclMemFree(nullptr), nullptr, "ptr");
  expectInvalid(trncclGetVersion(nullptr), nullptr, "version");
  int version = 0;
  CHECK(trncclGetVersion(&version) == trncclSuccess);
  CHECK(version == TRNCCL_VERSION);
  requireUsable(c);
  CHECK(trncclCommDestroy(c) == trncclSuccess);
}

TEST_CASE("bad input: every result code has a message", "[bad-input]") {
  for (int code = 0; code < trncclNumResults; ++code) {
    const char* text = trncclGetErrorString(static_cast<trncclResult_t>(code));
    REQUIRE(text != nullptr);
    CHECK(std::string(text).size() > 3);
  }
  CHECK(trncclGetErrorString(static_cast<trncclResult_t>(99)) != nullptr);
}

TEST_CASE(
    "bad input: buffers a rank does not use may be NULL (broadcast send on non-roots, reduce receive on non-roots)",
    "[bad-input]") {
  std::vector<trncclComm_t> comms(2, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), 2, nullptr) == trncclSuccess);
  std::vector<trncclResult_t> rcs(4, trncclInternalError);
  std::vector<std::vector<float>> result(2, std::vector<float>(1000, 0.0f));
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      std::vector<float> mine(1000, static_cast<float>(r + 1));
      // Root 1 broadcasts; rank 0 passes no send buffer.
      rcs[2 * r] =
          trncclBroadcast(r == 1 ? mine.data() : nullptr, result[r].data(), 1000, trncclFloat32, 1, comms[r], nullptr);
      // Root 1 reduces; rank 0 passes no receive buffer.
      rcs[2 * r + 1] = trncclReduce(mine.data(), r == 1 ? mine.data() : nullptr, 1000, trncclFloat32, trncclSum, 1,
                                    comms[r], nullptr);
      if (r == 1) result[1] = mine;
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < rcs.size(); ++i) {
    INFO("call " << i << ": " << trncclGetLastError(comms[i / 2]));
    CHECK(rcs[i] == trncclSuccess);
  }
  CHECK(result[0][999] == 2.0f);  // broadcast from rank 1
  CHECK(result[1][0] == 3.0f);    // reduced at rank 1, in place
  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
}
