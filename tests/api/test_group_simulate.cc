// trncclGroupSimulateEnd: the predicted time of a group's operations, none of
// them run, and the communicators left as if they had never been called.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "checks.h"
#include "tests/support/scoped_env.h"
#include "thread_ranks.h"

using namespace trnccl::test;

namespace {

// Predicted seconds of one all-reduce of `count` floats on `comm`, by the
// other query of the same model (trncclCommGetAlgorithm).
double queriedSeconds(trncclComm_t comm, size_t count) {
  char name[TRNCCL_ALGO_NAME_MAX];
  double us = -1;
  REQUIRE(trncclCommGetAlgorithm(comm, "allreduce", count, trncclFloat32, name, &us) == trncclSuccess);
  return us * 1e-6;
}

float simulateAllReduces(trncclComm_t comm, size_t count, int calls, std::vector<float>& buffer) {
  trncclSimInfo_t info = TRNCCL_SIM_INFO_INITIALIZER;
  REQUIRE(info.estimatedTime < 0);
  REQUIRE(trncclGroupStart() == trncclSuccess);
  for (int i = 0; i < calls; ++i)
    REQUIRE(trncclAllReduce(buffer.data(), buffer.data(), count, trncclFloat32, trncclSum, comm, nullptr) ==
            trncclSuccess);
  REQUIRE(trncclGroupSimulateEnd(&info) == trncclSuccess);
  return info.estimatedTime;
}

}  // namespace

TEST_CASE("group simulate: refuses a NULL or uninitialised simInfo and a call outside a group, keeping the group",
          "[group][simulate]") {
  CHECK(trncclGroupSimulateEnd(nullptr) == trncclInvalidArgument);
  CHECK(std::string(trncclGetLastError(nullptr)).find("simInfo") != std::string::npos);
  trncclSimInfo_t info = TRNCCL_SIM_INFO_INITIALIZER;
  CHECK(trncclGroupSimulateEnd(&info) == trncclInvalidUsage);
  CHECK(std::string(trncclGetLastError(nullptr)).find("trncclGroupStart") != std::string::npos);

  REQUIRE(trncclGroupStart() == trncclSuccess);
  trncclSimInfo_t garbage{};
  CHECK(trncclGroupSimulateEnd(&garbage) == trncclInvalidArgument);
  CHECK(std::string(trncclGetLastError(nullptr)).find("TRNCCL_SIM_INFO_INITIALIZER") != std::string::npos);
  REQUIRE(trncclGroupStart() == trncclSuccess);  // nested
  CHECK(trncclGroupSimulateEnd(&info) == trncclInvalidUsage);
  CHECK(trncclGroupEnd() == trncclSuccess);
  CHECK(trncclGroupSimulateEnd(&info) == trncclSuccess);  // the refused calls left the outer group open
  CHECK(info.estimatedTime == 0.0f);                      // an empty group costs nothing
  CHECK(trncclGroupEnd() == trncclInvalidUsage);          // and it is closed now
}

TEST_CASE("group simulate: the model's time for what the group holds, nothing run, the ranks still matched",
          "[group][simulate]") {
  ScopedEnv check("TRNCCL_CHECK", "1");             // a sequence number not given back would mismatch the ranks below
  ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "20000");  // and fail them within this
  const int n = 4;
  std::vector<trncclComm_t> comms(n, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), n, nullptr) == trncclSuccess);
  const size_t small = 1024, large = 1 << 20;
  std::vector<float> buffer(large, 1.0f);

  // Rank 0 alone simulates: one all-reduce is what the tuner predicts for it,
  // two cost twice that, a larger one more. Nothing ran: the buffer is as it was.
  const float one = simulateAllReduces(comms[0], small, 1, buffer);
  CHECK(one > 0);
  CHECK(one == Approx(queriedSeconds(comms[0], small)).epsilon(1e-5));
  CHECK(simulateAllReduces(comms[0], small, 2, buffer) == Approx(2 * one).epsilon(1e-5));
  CHECK(simulateAllReduces(comms[0], large, 1, buffer) > one);
  for (float x : buffer) REQUIRE(x == 1.0f);

  // Point-to-point: a send and a receive around a ring, more for more bytes.
  auto simulateRing = [&](size_t count) {
    trncclSimInfo_t info = TRNCCL_SIM_INFO_INITIALIZER;
    REQUIRE(trncclGroupStart() == trncclSuccess);
    REQUIRE(trncclSend(buffer.data(), count, trncclFloat32, 1, comms[0], nullptr) == trncclSuccess);
    REQUIRE(trncclRecv(buffer.data(), count, trncclFloat32, n - 1, comms[0], nullptr) == trncclSuccess);
    REQUIRE(trncclGroupSimulateEnd(&info) == trncclSuccess);
    return info.estimatedTime;
  };
  const float ringSmall = simulateRing(small);
  CHECK(ringSmall > 0);
  CHECK(simulateRing(large) > ringSmall);

  // Every rank then runs a real all-reduce and a real ring exchange: had rank
  // 0's simulated calls used up numbers or tags, TRNCCL_CHECK would refuse the
  // all-reduce and the ring's receives would wait for the wrong messages.
  FailureLog log;
  std::vector<int> results = inThreads(n, [&](int rank) {
    std::vector<float> data(small, float(rank + 1)), from(small, -1.0f);
    if (!log.expect(rank, "trncclAllReduce",
                    trncclAllReduce(data.data(), data.data(), small, trncclFloat32, trncclSum, comms[rank], nullptr),
                    trncclSuccess, comms[rank]))
      return 1;
    for (float x : data)
      if (x != float(n * (n + 1) / 2)) {
        log.fail(rank, "all-reduce result " + std::to_string(x));
        return 1;
      }
    trncclGroupStart();
    trncclSend(data.data(), small, trncclFloat32, (rank + 1) % n, comms[rank], nullptr);
    trncclRecv(from.data(), small, trncclFloat32, (rank + n - 1) % n, comms[rank], nullptr);
    if (!log.expect(rank, "trncclGroupEnd", trncclGroupEnd(), trncclSuccess, comms[rank])) return 1;
    for (float x : from)
      if (x != float(n * (n + 1) / 2)) {
        log.fail(rank, "received " + std::to_string(x));
        return 1;
      }
    return 0;
  });
  INFO(log.text());
  CHECK(describeResults(results) == describeResults(std::vector<int>(n, 0)));
  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
}
