// trncclCommRevoke and trncclCommShrink on thread ranks: argument checks,
// shrinking a healthy communicator, survivors that disagree, a survivor that
// never answers, and queued work that a revoke ends.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "checks.h"
#include "thread_ranks.h"

using namespace trnccl::test;

namespace {

bool says(trncclComm_t comm, const std::string& words) {
  return std::string(trncclGetLastError(comm)).find(words) != std::string::npos;
}

// An all-reduce on `comm` of rank + 1 from every rank: true when exact.
bool allReduceWorks(trncclComm_t comm) {
  int n = 0, rank = 0;
  trncclCommCount(comm, &n);
  trncclCommUserRank(comm, &rank);
  std::vector<int32_t> data(1000, rank + 1);
  if (trncclAllReduce(data.data(), data.data(), data.size(), trncclInt32, trncclSum, comm, nullptr) != trncclSuccess)
    return false;
  for (int32_t x : data)
    if (x != n * (n + 1) / 2) return false;
  return true;
}

}  // namespace

TEST_CASE("shrink: every argument is checked, naming it", "[shrink]") {
  FailureLog log;
  const ThreadJob job = runOnThreads(1, [&](trncclComm_t comm, int) {
    trncclComm_t out = nullptr;
    int self = 0, outside = 5, list[] = {0};
    log.expect(0, "NULL newcomm", trncclCommShrink(comm, nullptr, 0, nullptr, nullptr, 0), trncclInvalidArgument, comm);
    if (!says(comm, "newcomm")) log.fail(0, "the NULL newcomm is not named");
    log.expect(0, "negative count", trncclCommShrink(comm, list, -1, &out, nullptr, 0), trncclInvalidArgument, comm);
    if (!says(comm, "excludeRanksCount")) log.fail(0, "excludeRanksCount is not named");
    log.expect(0, "flags", trncclCommShrink(comm, nullptr, 0, &out, nullptr, 4), trncclInvalidArgument, comm);
    if (!says(comm, "shrinkFlags")) log.fail(0, "shrinkFlags is not named");
    log.expect(0, "self", trncclCommShrink(comm, &self, 1, &out, nullptr, 0), trncclInvalidArgument, comm);
    log.expect(0, "out of range", trncclCommShrink(comm, &outside, 1, &out, nullptr, 0), trncclInvalidArgument, comm);
    log.expect(0, "revoke flags", trncclCommRevoke(comm, 3), trncclInvalidArgument, comm);
    if (!says(comm, "revokeFlags")) log.fail(0, "revokeFlags is not named");
    log.expect(0, "revoke NULL", trncclCommRevoke(nullptr, 0), trncclInvalidArgument, nullptr);
    if (out != nullptr) log.fail(0, "a refused shrink made a communicator");
    // Refused calls left the communicator working.
    if (!allReduceWorks(comm)) log.fail(0, "the all-reduce after the refused calls failed");
    return 0;
  });
  requireClean(job, log);
}

TEST_CASE("shrink: a healthy communicator of 5 leaves out ranks 1 and 3, the others keep their order", "[shrink]") {
  FailureLog log;
  const ThreadJob job = runOnThreads(5, [&](trncclComm_t comm, int rank) {
    if (rank == 1 || rank == 3) return 0;  // excluded ranks do not call it
    int excluded[] = {3, 1};
    trncclComm_t shrunk = nullptr;
    if (!log.expect(rank, "trncclCommShrink",
                    trncclCommShrink(comm, excluded, 2, &shrunk, nullptr, TRNCCL_SHRINK_DEFAULT), trncclSuccess, comm))
      return 1;
    int n = 0, newRank = -1;
    trncclCommCount(shrunk, &n);
    trncclCommUserRank(shrunk, &newRank);
    const int expected = rank == 0 ? 0 : rank == 2 ? 1 : 2;
    if (n != 3 || newRank != expected)
      log.fail(rank, "shrunk to " + std::to_string(n) + " ranks as rank " + std::to_string(newRank));
    if (!allReduceWorks(shrunk)) log.fail(rank, "the all-reduce on the shrunk communicator failed");
    trncclCommDestroy(shrunk);
    return 0;
  });
  requireClean(job, log);
}

TEST_CASE("shrink: survivors that exclude different ranks all fail, naming the one that disagrees", "[shrink]") {
  FailureLog log;
  const ThreadJob job = runOnThreads(5, [&](trncclComm_t comm, int rank) {
    if (rank == 4) return 0;  // excluded by everyone
    // Rank 2 also excludes rank 3, which takes part: the coordinator (rank 0) sees it.
    std::vector<int> excluded = rank == 2 ? std::vector<int>{4, 3} : std::vector<int>{4};
    trncclComm_t shrunk = nullptr;
    const trncclResult_t rc =
        trncclCommShrink(comm, excluded.data(), static_cast<int>(excluded.size()), &shrunk, nullptr, 0);
    if (rc != trncclInvalidUsage) log.fail(rank, "the shrink returned " + std::to_string(rc));
    if (!says(comm, "rank 2 excludes"))
      log.fail(rank, std::string("the error does not name rank 2: ") + trncclGetLastError(comm));
    if (shrunk != nullptr) log.fail(rank, "a failed shrink made a communicator");
    return 0;
  });
  requireClean(job, log);
}

TEST_CASE("shrink: a survivor that never answers (dead but not excluded) fails the others within the timeout, named",
          "[shrink]") {
  FailureLog log;
  trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
  config.timeoutMs = 1500;
  std::atomic<int> done{0};
  const ThreadJob job = runOnThreadsWithConfig(3, config, [&](trncclComm_t comm, int rank) {
    if (rank == 2) {  // silent until the others gave up
      while (done.load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return 0;
    }
    trncclComm_t shrunk = nullptr;
    const trncclResult_t rc = trncclCommShrink(comm, nullptr, 0, &shrunk, nullptr, 0);
    if (rc == trncclSuccess) log.fail(rank, "the shrink succeeded");
    if (!says(comm, "rank 2"))
      log.fail(rank, std::string("the error does not name rank 2: ") + trncclGetLastError(comm));
    ++done;
    return 0;
  });
  requireClean(job, log);
}

TEST_CASE("revoke: queued all-reduces a peer never joins end with trncclRemoteError at once, then a shrink goes on",
          "[shrink][revoke]") {
  FailureLog log;
  std::atomic<bool> finished{false};
  const ThreadJob job = runOnThreads(2, [&](trncclComm_t comm, int rank) {
    if (rank == 1) {  // never joins
      while (!finished.load()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return 0;
    }
    trncclStream_t stream = nullptr;
    trncclStreamCreate(&stream);
    std::vector<float> data(1 << 16, 1.0f);
    for (int i = 0; i < 3; ++i)
      trncclAllReduce(data.data(), data.data(), data.size(), trncclFloat32, trncclSum, comm, stream);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto start = std::chrono::steady_clock::now();
    log.expect(rank, "trncclCommRevoke", trncclCommRevoke(comm, TRNCCL_REVOKE_DEFAULT), trncclSuccess, comm);
    const trncclResult_t synced = trncclStreamSynchronize(stream);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    if (synced != trncclRemoteError) log.fail(rank, "the queued work ended with " + std::to_string(synced));
    if (ms > 10000) log.fail(rank, "the revoke took " + std::to_string(ms) + " ms");
    if (trncclAllReduce(data.data(), data.data(), 1, trncclFloat32, trncclSum, comm, nullptr) != trncclRemoteError)
      log.fail(rank, "a revoked communicator took a new all-reduce");
    int excluded[] = {1};
    trncclComm_t alone = nullptr;
    if (log.expect(rank, "trncclCommShrink", trncclCommShrink(comm, excluded, 1, &alone, nullptr, 0), trncclSuccess,
                   comm)) {
      if (!allReduceWorks(alone)) log.fail(rank, "the all-reduce on the shrunk communicator failed");
      trncclCommDestroy(alone);
    }
    trncclStreamDestroy(stream);
    finished = true;
    return 0;
  });
  requireClean(job, log);
}
