// Communicator management: count and rank, split, finalize/destroy,
// configuration through trncclConfig_t and the environment (and the errors
// for unknown values), algorithm choice.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "checks.h"
#include "tests/support/scoped_env.h"
#include "thread_ranks.h"

using namespace trnccl::test;

namespace {

// A 1-rank communicator with `config` (NULL: none) on a fresh unique id.
trncclResult_t initOne(trncclConfig_t* config, trncclComm_t* comm) {
  trncclUniqueId id;
  REQUIRE(trncclGetUniqueId(&id) == trncclSuccess);
  *comm = nullptr;
  return trncclCommInitRankConfig(comm, 1, id, 0, config);
}

// The creation must fail with trncclInvalidArgument, naming `what`.
void requireRefused(trncclConfig_t* config, const char* what) {
  trncclComm_t comm = nullptr;
  const trncclResult_t rc = initOne(config, &comm);
  const std::string message = trncclGetLastError(nullptr);
  INFO("trncclCommInitRankConfig returned " << rc << ": " << message);
  CHECK(rc == trncclInvalidArgument);
  CHECK(comm == nullptr);
  CHECK(message.find(what) != std::string::npos);
  if (comm) trncclCommDestroy(comm);
}

void requireAccepted(trncclConfig_t* config) {
  trncclComm_t comm = nullptr;
  const trncclResult_t rc = initOne(config, &comm);
  INFO("trncclCommInitRankConfig returned " << rc << ": " << trncclGetLastError(nullptr));
  REQUIRE(rc == trncclSuccess);
  // And it works: a 1-rank all-reduce copies.
  int32_t in = 5, out = 0;
  CHECK(trncclAllReduce(&in, &out, 1, trncclInt32, trncclSum, comm, nullptr) == trncclSuccess);
  CHECK(out == 5);
  CHECK(trncclCommDestroy(comm) == trncclSuccess);
}

}  // namespace

TEST_CASE("comm: trncclCommCount and trncclCommUserRank", "[comm]") {
  const int n = 3;
  std::vector<trncclComm_t> comms(n, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), n, nullptr) == trncclSuccess);
  for (int r = 0; r < n; ++r) {
    int count = -1, rank = -1;
    CHECK(trncclCommCount(comms[r], &count) == trncclSuccess);
    CHECK(trncclCommUserRank(comms[r], &rank) == trncclSuccess);
    CHECK(count == n);
    CHECK(rank == r);
  }
  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
}

TEST_CASE("comm: trncclCommSplit by even/odd color, keys reversing the order, one rank without a color", "[comm]") {
  const int n = 6;  // ranks 0 2 4 even, 1 3 odd, 5 TRNCCL_SPLIT_NOCOLOR
  checkOnThreads(n, [&](trncclComm_t comm, int r, FailureLog& log) {
    const int color = r == 5 ? TRNCCL_SPLIT_NOCOLOR : r % 2;
    trncclComm_t sub = reinterpret_cast<trncclComm_t>(uintptr_t{1});  // must be overwritten
    if (!log.expect(r, "trncclCommSplit", trncclCommSplit(comm, color, -r, &sub, nullptr), trncclSuccess, comm))
      return false;
    if (color == TRNCCL_SPLIT_NOCOLOR)
      return sub == nullptr ? true : log.fail(r, "TRNCCL_SPLIT_NOCOLOR gave a communicator");
    if (sub == nullptr) return log.fail(r, "trncclCommSplit gave NULL");
    // Members ordered by key (= -parent rank): the parent order reversed.
    const std::vector<int> members = color == 0 ? std::vector<int>{4, 2, 0} : std::vector<int>{3, 1};
    const int expectedRank = static_cast<int>(std::find(members.begin(), members.end(), r) - members.begin());
    int count = -1, rank = -1;
    log.expect(r, "trncclCommCount", trncclCommCount(sub, &count), trncclSuccess, sub);
    log.expect(r, "trncclCommUserRank", trncclCommUserRank(sub, &rank), trncclSuccess, sub);
    if (count != static_cast<int>(members.size()) || rank != expectedRank)
      log.fail(r, "sub-communicator count " + std::to_string(count) + " rank " + std::to_string(rank) + ", expected " +
                      std::to_string(members.size()) + " and " + std::to_string(expectedRank));
    // An all-reduce on the sub-communicator sums over its members only; an
    // all-gather shows the members' order.
    const size_t elems = 1000;
    std::vector<int64_t> send(elems), recv(elems, -1);
    for (size_t i = 0; i < elems; ++i) send[i] = int64_t{1000} * (r + 1) + static_cast<int64_t>(i);
    log.expect(r, "trncclAllReduce on the sub-communicator",
               trncclAllReduce(send.data(), recv.data(), elems, trncclInt64, trncclSum, sub, nullptr), trncclSuccess,
               sub);
    for (size_t i = 0; i < elems; ++i) {
      int64_t want = 0;
      for (int m : members) want += int64_t{1000} * (m + 1) + static_cast<int64_t>(i);
      if (recv[i] != want) {
        log.fail(r, "sub-communicator all-reduce element " + std::to_string(i) + " = " + std::to_string(recv[i]) +
                        ", expected " + std::to_string(want));
        break;
      }
    }
    int32_t me = r;
    std::vector<int32_t> order(members.size(), -1);
    log.expect(r, "trncclAllGather on the sub-communicator",
               trncclAllGather(&me, order.data(), 1, trncclInt32, sub, nullptr), trncclSuccess, sub);
    if (order != std::vector<int32_t>(members.begin(), members.end())) log.fail(r, "sub-communicator rank order wrong");
    log.expect(r, "trncclCommDestroy(sub)", trncclCommDestroy(sub), trncclSuccess, nullptr);
    return true;
  });
}

TEST_CASE("comm: a split of a split with its own config, and every rank without a color", "[comm]") {
  const int n = 4;
  checkOnThreads(n, [&](trncclComm_t comm, int r, FailureLog& log) {
    trncclResult_t async = trncclInternalError;
    log.expect(r, "trncclCommGetAsyncError", trncclCommGetAsyncError(comm, &async), trncclSuccess, comm);
    if (async != trncclSuccess) log.fail(r, "a healthy communicator reports async error " + std::to_string(async));
    trncclComm_t none = comm;
    log.expect(r, "trncclCommSplit(NOCOLOR)", trncclCommSplit(comm, TRNCCL_SPLIT_NOCOLOR, r, &none, nullptr),
               trncclSuccess, comm);
    if (none != nullptr) log.fail(r, "every rank split with TRNCCL_SPLIT_NOCOLOR, yet got a communicator");
    // {0,1,2,3} -> halves {0,1} {2,3} (config: mesh, 10 s) -> singletons.
    trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
    config.algorithm = "mesh";
    config.timeoutMs = 10000;
    trncclComm_t half = nullptr, single = nullptr;
    if (!log.expect(r, "trncclCommSplit(halves)", trncclCommSplit(comm, r / 2, r, &half, &config), trncclSuccess, comm))
      return false;
    if (!log.expect(r, "trncclCommSplit(singletons)", trncclCommSplit(half, r, 0, &single, nullptr), trncclSuccess,
                    half))
      return false;
    int32_t value = r + 1, sum = 0, alone = 0;
    log.expect(r, "trncclAllReduce(half)", trncclAllReduce(&value, &sum, 1, trncclInt32, trncclSum, half, nullptr),
               trncclSuccess, half);
    log.expect(r, "trncclAllReduce(single)",
               trncclAllReduce(&value, &alone, 1, trncclInt32, trncclSum, single, nullptr), trncclSuccess, single);
    const int32_t wantHalf = r < 2 ? 1 + 2 : 3 + 4;
    if (sum != wantHalf || alone != r + 1)
      log.fail(r, "half sum " + std::to_string(sum) + " (" + std::to_string(wantHalf) + "), singleton " +
                      std::to_string(alone));
    int size = 0;
    trncclCommCount(single, &size);
    if (size != 1) log.fail(r, "the singleton has " + std::to_string(size) + " ranks");
    log.expect(r, "trncclCommDestroy(single)", trncclCommDestroy(single), trncclSuccess, nullptr);
    log.expect(r, "trncclCommDestroy(half)", trncclCommDestroy(half), trncclSuccess, nullptr);
    return true;
  });
}

TEST_CASE("comm: trncclCommFinalize completes queued work, then trncclCommDestroy", "[comm]") {
  const int n = 2;
  const size_t count = 20000;
  checkOnThreads(n, [&](trncclComm_t comm, int r, FailureLog& log) {
    trncclStream_t s = nullptr;
    if (!log.expect(r, "trncclStreamCreate", trncclStreamCreate(&s), trncclSuccess, nullptr)) return false;
    std::vector<float> send(count, 1.0f + static_cast<float>(r)), recv(count, 0.0f);
    log.expect(r, "trncclAllReduce on a stream",
               trncclAllReduce(send.data(), recv.data(), count, trncclFloat32, trncclSum, comm, s), trncclSuccess,
               comm);
    log.expect(r, "trncclCommFinalize", trncclCommFinalize(comm), trncclSuccess, comm);
    // Finalize waited for the queued all-reduce.
    log.expect(r, "trncclStreamQuery after finalize", trncclStreamQuery(s), trncclSuccess, nullptr);
    if (std::count(recv.begin(), recv.end(), 3.0f) != static_cast<long>(count))
      log.fail(r, "the all-reduce had not completed at finalize");
    log.expect(r, "trncclStreamDestroy", trncclStreamDestroy(s), trncclSuccess, nullptr);
    return true;
  });
}

TEST_CASE("comm: trncclCommInitRankConfig with timeoutMs and algorithm \"ring\" gives correct results",
          "[comm][algorithm]") {
  trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
  config.timeoutMs = 30000;
  config.algorithm = "ring";
  config.commName = "ring-config";
  MatrixOptions options;
  options.collectives = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast,
                         Collective::Reduce};
  options.counts = {1, 37, kLargeCount};
  options.salt = 11;
  checkThreadMatrix(3, options, &config);
}

TEST_CASE("comm: trncclCommInitRankConfig with algorithm \"mesh\" gives correct results", "[comm][algorithm]") {
  trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
  config.timeoutMs = 30000;
  config.algorithm = "mesh";
  MatrixOptions options;
  options.collectives = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::AllToAll};
  options.counts = {1, 37, kLargeCount};
  options.salt = 12;
  checkThreadMatrix(3, options, &config);
}

TEST_CASE("comm: TRNCCL_ALGO=ring gives correct results (4 processes)", "[comm][algorithm][processes]") {
  ScopedEnv algo("TRNCCL_ALGO", "ring");
  checkProcessMatrix(4, {"--colls", "allreduce,allgather,reducescatter,broadcast,reduce", "--large-types", "few"});
}

TEST_CASE("comm: TRNCCL_ALGO=mesh gives correct results (4 processes)", "[comm][algorithm][processes]") {
  ScopedEnv algo("TRNCCL_ALGO", "mesh");
  checkProcessMatrix(4, {"--colls", "allreduce,allgather,reducescatter,alltoall", "--large-types", "few"});
}

TEST_CASE("comm: unknown config values are trncclInvalidArgument naming the field", "[comm][config]") {
  SECTION("algorithm \"bogus\"") {
    trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
    config.algorithm = "bogus";
    requireRefused(&config, "algorithm");
  }
  SECTION("transport \"bogus\"") {
    trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
    config.transport = "bogus";
    requireRefused(&config, "transport");
  }
  SECTION("blocking 7") {
    trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
    config.blocking = 7;
    requireRefused(&config, "blocking");
  }
  SECTION("timeoutMs -5") {
    trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
    config.timeoutMs = -5;
    requireRefused(&config, "timeoutMs");
  }
  SECTION("a config not made by TRNCCL_CONFIG_INITIALIZER") {
    trncclConfig_t config;
    std::memset(&config, 0, sizeof config);
    requireRefused(&config, "config");
  }
  SECTION("known values are accepted") {
    trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
    config.algorithm = "mesh";
    config.transport = "shm";
    config.timeoutMs = 5000;
    config.blocking = 1;
    requireAccepted(&config);
  }
}

TEST_CASE("comm: unknown environment values are trncclInvalidArgument naming the variable", "[comm][config]") {
  SECTION("TRNCCL_ALGO=bogus with trncclCommInitAll") {
    ScopedEnv env("TRNCCL_ALGO", "bogus");
    std::vector<trncclComm_t> comms(2, nullptr);
    CHECK(trncclCommInitAll(comms.data(), 2, nullptr) == trncclInvalidArgument);
    INFO(trncclGetLastError(nullptr));
    CHECK(std::string(trncclGetLastError(nullptr)).find("TRNCCL_ALGO") != std::string::npos);
  }
  SECTION("TRNCCL_ALGO=bogus with trncclCommInitRank") {
    ScopedEnv env("TRNCCL_ALGO", "bogus");
    requireRefused(nullptr, "TRNCCL_ALGO");
  }
  SECTION("TRNCCL_TRANSPORT=bogus") {
    ScopedEnv env("TRNCCL_TRANSPORT", "bogus");
    requireRefused(nullptr, "TRNCCL_TRANSPORT");
  }
  SECTION("TRNCCL_TIMEOUT_MS=abc") {
    trncclUniqueId id;
    REQUIRE(trncclGetUniqueId(&id) == trncclSuccess);  // before the variable is set: it reads it too
    ScopedEnv env("TRNCCL_TIMEOUT_MS", "abc");
    trncclComm_t comm = nullptr;
    CHECK(trncclCommInitRank(&comm, 1, id, 0) == trncclInvalidArgument);
    INFO(trncclGetLastError(nullptr));
    CHECK(std::string(trncclGetLastError(nullptr)).find("TRNCCL_TIMEOUT_MS") != std::string::npos);
    std::vector<trncclComm_t> comms(2, nullptr);
    CHECK(trncclCommInitAll(comms.data(), 2, nullptr) == trncclInvalidArgument);
    CHECK(std::string(trncclGetLastError(nullptr)).find("TRNCCL_TIMEOUT_MS") != std::string::npos);
  }
  SECTION("the config struct wins over the environment") {
    ScopedEnv algo("TRNCCL_ALGO", "bogus");
    ScopedEnv transport("TRNCCL_TRANSPORT", "bogus");
    trncclUniqueId id;
    REQUIRE(trncclGetUniqueId(&id) == trncclSuccess);
    ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "abc");
    trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
    config.algorithm = "ring";
    config.transport = "auto";
    config.timeoutMs = 5000;
    trncclComm_t comm = nullptr;
    const trncclResult_t rc = trncclCommInitRankConfig(&comm, 1, id, 0, &config);
    INFO(trncclGetLastError(nullptr));
    REQUIRE(rc == trncclSuccess);
    CHECK(trncclCommDestroy(comm) == trncclSuccess);
  }
}

TEST_CASE("comm: TRNCCL_DEBUG=bogus is trncclInvalidArgument naming the variable", "[comm][config]") {
  // DESIGN.md: an unknown value is an error naming the variable, never a
  // fallback (logging itself must not throw, but creating a communicator can
  // refuse).
  ScopedEnv env("TRNCCL_DEBUG", "bogus");
  requireRefused(nullptr, "TRNCCL_DEBUG");
}
