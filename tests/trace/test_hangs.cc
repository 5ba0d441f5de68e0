// Hangs made for real on thread ranks, dumped by the flight recorder (on
// timeout, on abort, on SIGUSR1) and named by trnccl-trace analyze.
#include <signal.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>
#include <vector>

#include "analysis.h"
#include "tests/support/scoped_env.h"
#include "thread_ranks.h"
#include "trace_support.h"

using trnccl::test::ScopedEnv;
using namespace trnccl::test;

namespace {

std::string analyzeDir(const std::string& dir) { return trnccl::trace::analyze(trnccl::trace::readDumps(dir)).line; }

// Waits, sleeping, until `counter` reaches `value` (bounded: 20 s).
void waitUntil(const std::atomic<int>& counter, int value) {
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (counter.load() < value && std::chrono::steady_clock::now() < limit)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

int allReduce(trncclComm_t comm, size_t count) {
  std::vector<float> data(count, 1.0f);
  return trncclAllReduce(data.data(), data.data(), count, trncclFloat32, trncclSum, comm, nullptr);
}

}  // namespace

TEST_CASE("hang: a rank that skips a collective is named as never entering it", "[trace][hang]") {
  TempDir dir;
  ScopedEnv traceDir("TRNCCL_TRACE_DIR", dir.path().c_str());
  ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "1000");
  std::atomic<int> returned{0};
  // Ranks 0, 1 and 3 call two all-reduces; rank 2 only the first, then waits
  // for the others to give up (they time out and dump), then all abort.
  const std::vector<int> results = runThenAbort(4, [&](trncclComm_t comm, int rank) {
    int failures = allReduce(comm, 4096) == trncclSuccess ? 0 : 1;
    if (rank != 2) {
      failures += allReduce(comm, 4096) == trncclTimeout ? 0 : 10;
      ++returned;
    } else {
      waitUntil(returned, 3);
    }
    return failures;
  });
  REQUIRE(results == std::vector<int>{0, 0, 0, 0});
  REQUIRE(dir.files().size() == 4);
  const nlohmann::json rank0 = dumpOf(dir.path(), 0);
  CHECK(rank0["reason"] == "abort");
  CHECK(rank0["ops"].back()["state"] == "failed");
  CHECK(rank0["ops"].back()["seq"] == 1);
  const std::string line = analyzeDir(dir.path());
  INFO(line);
  CHECK_THAT(line, Catch::Contains("allreduce #1") && Catch::Contains("rank 2 never entered it") &&
                       Catch::Contains("last collective: #0") && Catch::Contains("ranks 0-1, 3 are in it"));
}

TEST_CASE("hang: a rank that destroys its communicator while the others wait is named by its last call",
          "[trace][hang]") {
  TempDir dir;
  ScopedEnv traceDir("TRNCCL_TRACE_DIR", dir.path().c_str());
  ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "2000");
  std::vector<trncclComm_t> comms(3, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), 3, nullptr) == trncclSuccess);
  // Rank 2 makes one all-reduce and leaves; ranks 0 and 1 wait for it in a
  // second one (they fail once its transport is gone, or time out).
  const std::vector<int> results = trnccl::test::inThreads(3, [&](int rank) {
    trncclComm_t comm = comms[static_cast<size_t>(rank)];
    int failures = allReduce(comm, 4096) == trncclSuccess ? 0 : 1;
    if (rank == 2) return failures + (trncclCommDestroy(comm) == trncclSuccess ? 0 : 10);
    failures += allReduce(comm, 4096) != trncclSuccess ? 0 : 100;
    return failures + (trncclCommAbort(comm) == trncclSuccess ? 0 : 1000);
  });
  REQUIRE(results == std::vector<int>{0, 0, 0});
  CHECK(dumpOf(dir.path(), 2)["reason"] == "destroy");
  const std::string line = analyzeDir(dir.path());
  INFO(line);
  CHECK_THAT(line, Catch::Contains("allreduce #1") && Catch::Contains("rank 2 never entered it") &&
                       Catch::Contains("last collective: #0") && Catch::Contains("ranks 0-1 are in it"));
}

TEST_CASE("hang: a timeout dumps the recorder at once, before any abort", "[trace][hang]") {
  TempDir dir;
  ScopedEnv traceDir("TRNCCL_TRACE_DIR", dir.path().c_str());
  ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "500");
  std::atomic<int> returned{0};
  size_t dumpsAtTimeout = 0;
  std::string reason;
  const std::vector<int> results = runThenAbort(2, [&](trncclComm_t comm, int rank) {
    if (rank == 0) {
      const int rc = allReduce(comm, 64);
      dumpsAtTimeout = dir.files().size();
      reason = dumpOf(dir.path(), 0).value("reason", "");
      ++returned;
      return rc == trncclTimeout ? 0 : 1;
    }
    waitUntil(returned, 1);
    return 0;
  });
  REQUIRE(results == std::vector<int>{0, 0});
  CHECK(dumpsAtTimeout == 1);
  CHECK(reason == "timeout");
}

TEST_CASE("hang: ranks that call different collectives at one sequence number are named (TRNCCL_CHECK=0)",
          "[trace][hang]") {
  TempDir dir;
  ScopedEnv traceDir("TRNCCL_TRACE_DIR", dir.path().c_str());
  ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "1000");
  ScopedEnv check("TRNCCL_CHECK", "0");
  runThenAbort(4, [&](trncclComm_t comm, int rank) {
    allReduce(comm, 1024);
    if (rank == 1) {
      std::vector<float> send(256, 1.0f), recv(1024);
      trncclAllGather(send.data(), recv.data(), 256, trncclFloat32, comm, nullptr);
    } else {
      allReduce(comm, 1024);
    }
    return 0;
  });
  REQUIRE(dir.files().size() == 4);
  const std::string line = analyzeDir(dir.path());
  INFO(line);
  CHECK_THAT(line, Catch::Contains("different collectives as #1") &&
                       Catch::Contains("ranks 0, 2-3 called allreduce of 1024 x float sum") &&
                       Catch::Contains("rank 1 called allgather of 256 x float"));
}

TEST_CASE("hang: SIGUSR1 dumps every communicator of the process while a call is blocked", "[trace][hang][signal]") {
  TempDir dir;
  ScopedEnv traceDir("TRNCCL_TRACE_DIR", dir.path().c_str());
  ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "20000");
  std::string line;
  nlohmann::json dump0, dump1;
  std::vector<trncclComm_t> comms(2, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), 2, nullptr) == trncclSuccess);
  // Rank 0 blocks in its all-reduce; this thread (rank 1) signals, reads the
  // dumps, and then joins, so the call completes.
  std::thread rank0([&] { CHECK(allReduce(comms[0], 4096) == trncclSuccess); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  raise(SIGUSR1);
  const bool dumped = waitForDumps(dir.path(), 2, std::chrono::seconds(10));
  if (dumped) {
    line = analyzeDir(dir.path());
    dump0 = dumpOf(dir.path(), 0);
    dump1 = dumpOf(dir.path(), 1);
  }
  CHECK(allReduce(comms[1], 4096) == trncclSuccess);
  rank0.join();
  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
  REQUIRE(dumped);
  CHECK(dump0["reason"] == "signal");
  REQUIRE(dump0["ops"].size() == 1);
  CHECK(dump0["ops"][0]["state"] == "waiting");
  CHECK(dump0["ops"][0]["waitingFor"]["peer"] == 1);
  CHECK(dump1["ops"].empty());
  INFO(line);
  CHECK_THAT(line, Catch::Contains("allreduce #0") && Catch::Contains("rank 1 never entered it") &&
                       Catch::Contains("last collective: none") && Catch::Contains("rank 0 is in it"));
}

TEST_CASE("hang: without TRNCCL_TRACE_DIR a communicator leaves SIGUSR1 alone", "[trace][hang][signal]") {
  ScopedEnv traceDir("TRNCCL_TRACE_DIR", nullptr);
  struct sigaction ignore {
  }, before{}, after{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGUSR1, &ignore, &before);
  std::vector<trncclComm_t> comms(2, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), 2, nullptr) == trncclSuccess);
  sigaction(SIGUSR1, &before, &after);
  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
  CHECK(after.sa_handler == SIG_IGN);
}

TEST_CASE("hang: abort from another thread dumps the blocked call and what it waits for", "[trace][hang]") {
  TempDir dir;
  ScopedEnv traceDir("TRNCCL_TRACE_DIR", dir.path().c_str());
  ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "20000");
  std::vector<trncclComm_t> comms(2, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), 2, nullptr) == trncclSuccess);
  trncclResult_t blocked = trncclSuccess;
  std::thread rank0([&] { blocked = static_cast<trncclResult_t>(allReduce(comms[0], 4096)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(trncclCommAbort(comms[0]) == trncclSuccess);
  rank0.join();
  CHECK(blocked != trncclSuccess);
  CHECK(trncclCommAbort(comms[1]) == trncclSuccess);
  const nlohmann::json dump = dumpOf(dir.path(), 0);
  REQUIRE_FALSE(dump.is_null());
  CHECK(dump["reason"] == "abort");
  REQUIRE(dump["ops"].size() == 1);
  CHECK(dump["ops"][0]["collective"] == "allreduce");
  CHECK(dump["ops"][0]["count"] == 4096);
  CHECK(dump["ops"][0]["waitingFor"]["peer"] == 1);
  CHECK(dump["nranks"] == 2);
}

TEST_CASE("hang: TRNCCL_RECORDER_OPS bounds the ring a dump shows", "[trace][hang]") {
  TempDir dir;
  ScopedEnv traceDir("TRNCCL_TRACE_DIR", dir.path().c_str());
  ScopedEnv ops("TRNCCL_RECORDER_OPS", "4");
  const std::vector<int> results = runThenAbort(2, [&](trncclComm_t comm, int) {
    int failures = 0;
    for (int i = 0; i < 10; ++i) failures += allReduce(comm, 100 + i) == trncclSuccess ? 0 : 1;
    return failures;
  });
  REQUIRE(results == std::vector<int>{0, 0});
  for (int rank = 0; rank < 2; ++rank) {
    const nlohmann::json dump = dumpOf(dir.path(), rank);
    REQUIRE(dump["ops"].size() == 4);
    CHECK(dump["capacity"] == 4);
    for (int i = 0; i < 4; ++i) {
      CHECK(dump["ops"][i]["seq"] == 6 + i);
      CHECK(dump["ops"][i]["count"] == 106 + i);
      CHECK(dump["ops"][i]["state"] == "done");
    }
  }
  CHECK_THAT(analyzeDir(dir.path()), Catch::StartsWith("no hang recorded"));
}

TEST_CASE("hang: a call every rank refuses is recorded as failed, and is no hang", "[trace][hang]") {
  TempDir dir;
  ScopedEnv traceDir("TRNCCL_TRACE_DIR", dir.path().c_str());
  ScopedEnv algo("TRNCCL_ALGO", "rdh");  // rdh has no broadcast
  const std::vector<int> results = runThenAbort(2, [&](trncclComm_t comm, int) {
    std::vector<float> data(64, 1.0f);
    int failures =
        trncclBroadcast(data.data(), data.data(), 64, trncclFloat32, 0, comm, nullptr) == trncclInvalidUsage ? 0 : 1;
    return failures + (allReduce(comm, 64) == trncclSuccess ? 0 : 10);
  });
  REQUIRE(results == std::vector<int>{0, 0});
  const nlohmann::json dump = dumpOf(dir.path(), 0);
  REQUIRE(dump["ops"].size() == 2);
  CHECK(dump["ops"][0]["collective"] == "broadcast");
  CHECK(dump["ops"][0]["state"] == "failed");
  CHECK(dump["ops"][1]["state"] == "done");
  CHECK_THAT(analyzeDir(dir.path()), Catch::StartsWith("no hang recorded"));
}

TEST_CASE("hang: bad diagnostics settings are errors naming the variable", "[trace][hang]") {
  struct Case {
    const char* variable;
    const char* value;
    const char* named;
  };
  const Case cases[] = {{"TRNCCL_RECORDER_OPS", "many", "TRNCCL_RECORDER_OPS"},
                        {"TRNCCL_RECORDER_OPS", "-1", "TRNCCL_RECORDER_OPS"},
                        {"TRNCCL_TRACE_DIR", "/nonexistent/trnccl", "TRNCCL_TRACE_DIR"},
                        {"TRNCCL_TRACE", "/tmp/trace-%q.json", "TRNCCL_TRACE"},
                        {"TRNCCL_TRACE", "/nonexistent/trnccl/trace-%r.json", "TRNCCL_TRACE"}};
  for (const Case& c : cases) {
    ScopedEnv bad(c.variable, c.value);
    std::vector<trncclComm_t> comms(2, nullptr);
    INFO(c.variable << "=" << c.value);
    CHECK(trncclCommInitAll(comms.data(), 2, nullptr) == trncclInvalidArgument);
    CHECK_THAT(trncclGetLastError(nullptr), Catch::Contains(c.named));
  }
  TempDir dir;
  ScopedEnv traceDir("TRNCCL_TRACE_DIR", dir.path().c_str());
  ScopedEnv off("TRNCCL_RECORDER_OPS", "0");
  std::vector<trncclComm_t> comms(2, nullptr);
  CHECK(trncclCommInitAll(comms.data(), 2, nullptr) == trncclInvalidArgument);
  CHECK_THAT(trncclGetLastError(nullptr), Catch::Contains("TRNCCL_RECORDER_OPS=0"));
}

TEST_CASE("hang: a rank whose creation fails in trncclCommInitAll fails the others at once", "[trace][hang]") {
  // Rank 1 cannot create its trace file (a directory has its name), so its
  // creation fails before it joins the rendezvous. The others must not wait
  // for it: the timeout is longer than this test's ctest limit, so waiting
  // for it fails the test.
  TempDir dir;
  std::filesystem::create_directory(dir.path() + "/trace-1.json");
  const std::string pattern = dir.path() + "/trace-%r.json";
  ScopedEnv trace("TRNCCL_TRACE", pattern.c_str());
  ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "900000");
  std::vector<trncclComm_t> comms(4, nullptr);
  CHECK(trncclCommInitAll(comms.data(), 4, nullptr) == trncclInvalidArgument);
  CHECK_THAT(trncclGetLastError(nullptr), Catch::Contains("TRNCCL_TRACE") && Catch::Contains("trace-1.json"));
  for (trncclComm_t c : comms) CHECK(c == nullptr);
}
