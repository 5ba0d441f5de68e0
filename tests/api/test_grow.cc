// trncclCommGetUniqueId and trncclCommGrow: a live communicator of 4 thread
// ranks grows to 6, then all-reduces exactly on 6; bad arguments are named.
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "thread_ranks.h"

using namespace trnccl::test;

TEST_CASE("grow: 4 live ranks take in 2 new ones through rank 0's grow id, then all-reduce on 6", "[grow]") {
  const int before = 4, after = 6;
  std::vector<trncclComm_t> comms(before, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), before, nullptr) == trncclSuccess);
  // A first all-reduce on the old communicator, so the grow joins a live job.
  std::vector<int> results = inThreads(before, [&](int r) {
    int32_t x = 1;
    return trncclAllReduce(&x, &x, 1, trncclInt32, trncclSum, comms[r], nullptr) == trncclSuccess && x == before ? 0
                                                                                                                 : 1;
  });
  REQUIRE(results == std::vector<int>(before, 0));

  trncclUniqueId growId;
  REQUIRE(trncclCommGetUniqueId(comms[0], &growId) == trncclSuccess);
  CHECK(trncclCommGetUniqueId(comms[1], &growId) == trncclInvalidUsage);  // rank 0 hands it out
  CHECK(std::string(trncclGetLastError(comms[1])).find("rank 0") != std::string::npos);

  std::vector<trncclComm_t> grown(after, nullptr);
  FailureLog log;
  results = inThreads(after, [&](int r) {
    const trncclResult_t rc = r < before ? trncclCommGrow(comms[r], after, nullptr, -1, &grown[r], nullptr)
                                         : trncclCommGrow(nullptr, after, &growId, r, &grown[r], nullptr);
    if (!log.expect(r, "trncclCommGrow", rc, trncclSuccess, r < before ? comms[r] : nullptr)) return 1;
    int n = 0, rank = -1;
    trncclCommCount(grown[r], &n);
    trncclCommUserRank(grown[r], &rank);
    if (n != after || rank != r) return 1;
    std::vector<float> data(4096, float(r + 1));
    if (trncclAllReduce(data.data(), data.data(), data.size(), trncclFloat32, trncclSum, grown[r], nullptr) !=
        trncclSuccess)
      return 1;
    for (float x : data)
      if (x != float(after * (after + 1) / 2)) return 1;
    return 0;
  });
  INFO(log.text());
  CHECK(results == std::vector<int>(after, 0));
  // The old communicator still works.
  results = inThreads(before, [&](int r) {
    int32_t x = 2;
    return trncclAllReduce(&x, &x, 1, trncclInt32, trncclSum, comms[r], nullptr) == trncclSuccess && x == 2 * before
               ? 0
               : 1;
  });
  CHECK(results == std::vector<int>(before, 0));
  for (trncclComm_t c : grown)
    if (c) CHECK(trncclCommDestroy(c) == trncclSuccess);
  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
}

TEST_CASE("grow: bad arguments are refused, naming them", "[grow]") {
  trncclComm_t comm = nullptr;
  REQUIRE(trncclCommInitAll(&comm, 1, nullptr) == trncclSuccess);
  trncclComm_t out = nullptr;
  trncclUniqueId id;
  CHECK(trncclCommGetUniqueId(comm, nullptr) == trncclInvalidArgument);
  CHECK(trncclCommGrow(comm, 2, nullptr, -1, nullptr, nullptr) == trncclInvalidArgument);
  CHECK(std::string(trncclGetLastError(comm)).find("newcomm") != std::string::npos);
  CHECK(trncclCommGrow(comm, 0, nullptr, -1, &out, nullptr) == trncclInvalidArgument);
  CHECK(std::string(trncclGetLastError(comm)).find("nRanks") != std::string::npos);
  CHECK(trncclCommGrow(comm, 2, nullptr, 1, &out, nullptr) == trncclInvalidArgument);
  CHECK(std::string(trncclGetLastError(comm)).find("rank") != std::string::npos);
  CHECK(trncclCommGrow(comm, 2, nullptr, -1, &out, nullptr) == trncclInvalidUsage);  // no grow id yet
  CHECK(std::string(trncclGetLastError(comm)).find("trncclCommGetUniqueId") != std::string::npos);
  CHECK(trncclCommGrow(nullptr, 2, nullptr, 1, &out, nullptr) == trncclInvalidArgument);
  CHECK(std::string(trncclGetLastError(nullptr)).find("uniqueId") != std::string::npos);
  CHECK(trncclCommGrow(nullptr, 2, &id, 2, &out, nullptr) == trncclInvalidArgument);
  CHECK(out == nullptr);
  CHECK(trncclCommDestroy(comm) == trncclSuccess);
}
