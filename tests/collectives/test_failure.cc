// Failures: a rank process that dies mid-job, and a rank that never calls the
// collective. Nothing may hang: the other ranks get an error within the
// timeout, naming a rank, and can abort promptly; no shared-memory segment is
// left behind.
#include <dirent.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "launcher.h"
#include "tests/support/scoped_env.h"
#include "thread_ranks.h"
#include "transports/factory.h"
#include "two_instances.h"

using namespace trnccl::test;
using Clock = std::chrono::steady_clock;

namespace {

std::set<std::string> trncclShmEntries() {
  std::set<std::string> names;
  if (DIR* dir = opendir("/dev/shm")) {
    while (const dirent* e = readdir(dir)) {
      const std::string name = e->d_name;
      if (name.find("trnccl") != std::string::npos) names.insert(name);
    }
    closedir(dir);
  }
  return names;
}

// Entries present now that were not in `before`. Other tests running at the
// same time may hold segments for a moment while they connect, so a leftover
// must still be there after a few seconds.
std::vector<std::string> leftovers(const std::set<std::string>& before) {
  std::vector<std::string> left;
  for (int attempt = 0; attempt < 30; ++attempt) {
    left.clear();
    for (const std::string& name : trncclShmEntries())
      if (!before.count(name)) left.push_back(name);
    if (left.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return left;
}

// Every trnccl entry of /dev/shm was there `before`.
void checkNoLeftovers(const std::set<std::string>& before) {
  const std::vector<std::string> left = leftovers(before);
  INFO("left in /dev/shm: " << left.size() << (left.empty() ? "" : ", e.g. " + left[0]));
  CHECK(left.empty());
}

long long msSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// A blocking all-reduce of `count` floats on `comm` alone (its peers never
// join), aborted from this thread 300 ms after it starts.
struct AbortedCall {
  bool blockedUntilAbort = false;
  trncclResult_t abortResult = trncclSuccess;
  long long abortMs = 0;          // how long trncclCommAbort took
  long long returnedAfterMs = 0;  // when the call returned, after the abort began
  trncclResult_t result = trncclSuccess;
  std::string error;
};

AbortedCall abortBlockedAllReduce(trncclComm_t comm, size_t count) {
  AbortedCall call;
  std::atomic<long long> callEndedMs{-1};
  const auto start = Clock::now();
  std::thread caller([&] {
    std::vector<float> send(count, 1.0f), recv(count, 0.0f);
    call.result = trncclAllReduce(send.data(), recv.data(), count, trncclFloat32, trncclSum, comm, nullptr);
    call.error = trncclGetLastError(comm);
    callEndedMs = msSince(start);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  call.blockedUntilAbort = callEndedMs.load() == -1;
  const auto abortStart = Clock::now();
  call.abortResult = trncclCommAbort(comm);
  call.abortMs = msSince(abortStart);
  caller.join();
  call.returnedAfterMs = callEndedMs.load() - 300;
  return call;
}

// `sliceBytes`: "4096" (many small slices, sent eagerly) or "" (the default:
// few large slices, announced and read by the receiver). `killed`: the victim
// is killed (SIGKILL) in the middle of the call instead of exiting before it;
// `stopped`: it is stopped (SIGSTOP) there, and killed once the others timed out.
void checkDeadRank(int nranks, int victim, const char* sliceBytes, bool killed = false, bool stopped = false) {
  ScopedEnv slices("TRNCCL_SLICE_BYTES", *sliceBytes ? sliceBytes : nullptr);
  const std::set<std::string> before = trncclShmEntries();
  std::vector<std::string> args = {"--mode",       "die", "--victim",     std::to_string(victim),
                                   "--die-before", "3",   "--timeout-ms", "4000"};
  if (killed) args.push_back("--kill-during");
  if (stopped) args.push_back("--stop-during");
  const WorkerJob job = runWorkers(TRNCCL_COLL_WORKER, nranks, args, std::chrono::seconds(60));
  INFO("TRNCCL_SLICE_BYTES=" << sliceBytes << (killed ? ", killed mid-call" : ", exits before the call")
                             << "; workers (1 = a survivor's check failed, see stderr): " << describeJob(job));
  REQUIRE(job.error.empty());
  for (int r = 0; r < nranks; ++r) {
    const WorkerExit& e = job.exits[static_cast<size_t>(r)];
    if (r != victim)
      CHECK((e.exited && e.code == 0));
    else if (killed || stopped)
      CHECK(e.signal == SIGKILL);
    else
      CHECK((e.exited && e.code == 3));
  }
  checkNoLeftovers(before);
}

}  // namespace

TEST_CASE("failure: a rank process exits before its 3rd all-reduce (rank 1 of 3)", "[failure][processes]") {
  checkDeadRank(3, 1, GENERATE("4096", ""));
}

TEST_CASE("failure: a rank process exits before its 3rd all-reduce (rank 0 of 4)", "[failure][processes]") {
  checkDeadRank(4, 0, GENERATE("4096", ""));
}

TEST_CASE("failure: a rank killed mid-collective is named by every survivor, over shm and every network transport",
          "[failure][processes][transports]") {
  const TwoInstances net = GENERATE(from_range(twoInstanceNetworks()));
  const int victim = GENERATE(1, 2);
  CAPTURE(net.name, victim);
  ScopedTwoInstances placed(net);
  checkDeadRank(kTwoInstanceRanks, victim, "", /*killed=*/true);
}

TEST_CASE(
    "failure: a rank that stops reading mid-collective makes the others time out naming it, over every "
    "network transport",
    "[failure][processes][transports]") {
  // Two instances of one rank each: the survivor's sends fill the network
  // transport's buffers and it can only give up at its timeout.
  const std::string transport =
      GENERATE(from_range(trnccl::transport::transportNames(trnccl::transport::Reach::Network)));
  CAPTURE(transport);
  ScopedEnv topology("TRNCCL_TOPO", "trn1.2xlarge:2"), order("TRNCCL_RANK_ORDER", "0,2");
  ScopedNetworkTransport network(transport);
  checkDeadRank(2, 1, "", /*killed=*/false, /*stopped=*/true);
}

TEST_CASE("failure: a rank that never calls the collective gives trncclTimeout naming the peer", "[failure][timeout]") {
  FailureLog log;
  std::atomic<int> finished{0};
  const int n = GENERATE(2, 3);
  const int absent = n - 1;
  trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
  config.timeoutMs = 1000;
  const ThreadJob job = runOnThreadsWithConfig(n, config, [&](trncclComm_t comm, int r) {
    if (r == absent) {
      // Stays away until the others have given up (bounded).
      const auto deadline = Clock::now() + std::chrono::seconds(60);
      while (finished.load() < n - 1 && Clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return true;
    }
    std::vector<float> send(50000, 1.0f), recv(50000, 0.0f);
    const auto start = Clock::now();
    const trncclResult_t rc =
        trncclAllReduce(send.data(), recv.data(), send.size(), trncclFloat32, trncclSum, comm, nullptr);
    const long long ms = msSince(start);
    const std::string message = trncclGetLastError(comm);
    ++finished;
    if (rc != trncclTimeout)
      log.fail(r, "returned " + std::to_string(rc) + " after " + std::to_string(ms) +
                      " ms, expected trncclTimeout: " + message);
    if (ms < 900 || ms > 15000) log.fail(r, "gave up after " + std::to_string(ms) + " ms with a 1000 ms timeout");
    // With 2 ranks the only peer is the absent one; with more, the peer a
    // rank waits for may be a live rank that waits itself.
    const std::regex names = n == 2 ? std::regex("rank " + std::to_string(absent) + "\\b") : std::regex("rank [0-9]+");
    if (!std::regex_search(message, names)) log.fail(r, "the message names no (absent) peer: '" + message + "'");
    trncclResult_t async = trncclSuccess;
    log.expect(r, "trncclCommGetAsyncError", trncclCommGetAsyncError(comm, &async), trncclSuccess, comm);
    if (async != trncclTimeout)
      log.fail(r, "trncclCommGetAsyncError gave " + std::to_string(async) + ", expected trncclTimeout");
    // The failed communicator refuses further work at once (no second wait).
    const auto again = Clock::now();
    const trncclResult_t rc2 =
        trncclAllReduce(send.data(), recv.data(), send.size(), trncclFloat32, trncclSum, comm, nullptr);
    if (rc2 == trncclSuccess || msSince(again) > 2000)
      log.fail(r, "a call on the failed communicator returned " + std::to_string(rc2) + " after " +
                      std::to_string(msSince(again)) + " ms");
    return true;
  });
  INFO(n << " ranks, rank " << absent << " absent");
  INFO("communicator creation: " << job.initError);
  REQUIRE(job.init == trncclSuccess);
  INFO(log.text());
  CHECK(log.size() == 0);
}

TEST_CASE("failure: a send that timed out is not delivered later from the reused buffer", "[failure][timeout]") {
  // Rank 0's 1 MiB send times out (its peer is late); the call has returned,
  // so the buffer is the caller's again and it writes 7s into it. When rank
  // 1 finally receives, it must not get a "successful" message read from
  // that buffer (nor crash reading it, had it been freed).
  FailureLog log;
  std::atomic<bool> senderDone{false};
  std::atomic<bool> receiverDone{false};
  trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
  config.timeoutMs = 1000;
  const size_t count = 1 << 18;
  const ThreadJob job = runOnThreadsWithConfig(2, config, [&](trncclComm_t comm, int r) {
    std::vector<float> buffer(count, r == 0 ? 1.0f : 0.0f);
    if (r == 0) {
      const trncclResult_t rc = trncclSend(buffer.data(), count, trncclFloat32, 1, comm, nullptr);
      if (rc != trncclTimeout) log.fail(r, "the send returned " + std::to_string(rc) + ", expected trncclTimeout");
      std::fill(buffer.begin(), buffer.end(), 7.0f);
      senderDone = true;
      // Keeps the buffer mapped until the receiver is done (bounded).
      const auto deadline = Clock::now() + std::chrono::seconds(30);
      while (!receiverDone && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return true;
    }
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (!senderDone && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const trncclResult_t rc = trncclRecv(buffer.data(), count, trncclFloat32, 0, comm, nullptr);
    receiverDone = true;
    if (rc == trncclSuccess)
      log.fail(r, "the late receive succeeded, with buffer[0] = " + std::to_string(buffer[0]) +
                      " (the sender's call had failed; 7 = written after it returned)");
    return true;
  });
  REQUIRE(job.init == trncclSuccess);
  INFO(log.text());
  CHECK(log.size() == 0);
}

TEST_CASE("failure: trncclCommAbort returns promptly while a peer is stuck, and the aborted call returns",
          "[failure][abort]") {
  // Rank 0 waits in an all-reduce on a stream that rank 1 never joins; an
  // abort from the test thread must end it well before the 60 s timeout.
  trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
  config.timeoutMs = 60000;
  trncclUniqueId id;
  REQUIRE(trncclGetUniqueId(&id) == trncclSuccess);
  std::vector<trncclComm_t> comms(2, nullptr);
  inThreads(2, [&](int r) {
    trncclConfig_t mine = config;
    return static_cast<int>(trncclCommInitRankConfig(&comms[static_cast<size_t>(r)], 2, id, r, &mine));
  });
  REQUIRE(comms[0] != nullptr);
  REQUIRE(comms[1] != nullptr);
  trncclStream_t stream = nullptr;
  REQUIRE(trncclStreamCreate(&stream) == trncclSuccess);
  std::vector<float> send(1000, 1.0f), recv(1000, 0.0f);
  REQUIRE(trncclAllReduce(send.data(), recv.data(), send.size(), trncclFloat32, trncclSum, comms[0], stream) ==
          trncclSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(trncclStreamQuery(stream) == trncclInProgress);
  const auto start = Clock::now();
  CHECK(trncclCommAbort(comms[0]) == trncclSuccess);
  const trncclResult_t synced = trncclStreamSynchronize(stream);
  const long long ms = msSince(start);
  INFO("abort + synchronize took " << ms << " ms; synchronize returned " << synced << ": "
                                   << trncclGetLastError(nullptr));
  CHECK(ms < 10000);
  CHECK(synced != trncclSuccess);  // the aborted all-reduce did not complete
  CHECK(trncclStreamDestroy(stream) == trncclSuccess);
  CHECK(trncclCommDestroy(comms[1]) == trncclSuccess);
}

TEST_CASE("failure: trncclCommAbort ends an emulated collective's launch within a second", "[failure][abort]") {
  // At scale 10^6 the modelled launch of the 2023 runtime (about 53 us) lasts about 53 s.
  ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge"), emulate("TRNCCL_EMULATE_LINKS", "1");
  ScopedEnv era("TRNCCL_RUNTIME_ERA", "2023");
  ScopedEnv scale("TRNCCL_EMULATE_SCALE", "1000000");
  std::vector<trncclComm_t> comms(2, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), 2, nullptr) == trncclSuccess);
  const AbortedCall call = abortBlockedAllReduce(comms[0], 1024);
  INFO("the call returned " << call.result << " " << call.returnedAfterMs << " ms after the abort: " << call.error);
  CHECK(call.blockedUntilAbort);  // still launching
  CHECK(call.abortResult == trncclSuccess);
  CHECK(call.returnedAfterMs < 1000);
  CHECK(call.result != trncclSuccess);
  CHECK(call.error.find("abort") != std::string::npos);
  CHECK(trncclCommDestroy(comms[1]) == trncclSuccess);
}

TEST_CASE(
    "failure: trncclCommAbort from another thread ends a blocked blocking call within a second, and a new "
    "communicator works afterwards",
    "[failure][abort]") {
  // The two ranks on one instance (shared memory), then on two instances
  // over each network transport.
  const std::string network =
      GENERATE(std::string(), from_range(trnccl::transport::transportNames(trnccl::transport::Reach::Network)));
  CAPTURE(network);
  const bool between = !network.empty();
  ScopedEnv topology("TRNCCL_TOPO", between ? "trn1.2xlarge:2" : nullptr);
  ScopedEnv order("TRNCCL_RANK_ORDER", between ? "0,2" : nullptr);
  ScopedEnv transport("TRNCCL_TRANSPORT", between ? network.c_str() : nullptr);
  std::vector<trncclComm_t> comms(2, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), 2, nullptr) == trncclSuccess);
  // Rank 0 waits in a blocking all-reduce that rank 1 never joins.
  const AbortedCall call = abortBlockedAllReduce(comms[0], 1 << 16);
  INFO("abort returned after " << call.abortMs << " ms; the call returned " << call.result << " about "
                               << call.returnedAfterMs << " ms after the abort: " << call.error);
  CHECK(call.blockedUntilAbort);
  CHECK(call.abortResult == trncclSuccess);
  CHECK(call.abortMs < 1000);
  CHECK(call.returnedAfterMs < 1000);
  CHECK(call.result != trncclSuccess);
  CHECK(call.error.find("abort") != std::string::npos);
  CHECK(trncclCommDestroy(comms[1]) == trncclSuccess);

  // The process goes on: a fresh communicator computes right.
  std::vector<trncclComm_t> fresh(2, nullptr);
  REQUIRE(trncclCommInitAll(fresh.data(), 2, nullptr) == trncclSuccess);
  std::vector<int> results(2, -1);
  inThreads(2, [&](int r) {
    std::vector<float> send(1000, static_cast<float>(r + 1)), recv(1000, 0.0f);
    const trncclResult_t rc = trncclAllReduce(send.data(), recv.data(), send.size(), trncclFloat32, trncclSum,
                                              fresh[static_cast<size_t>(r)], nullptr);
    results[static_cast<size_t>(r)] = rc == trncclSuccess && recv[0] == 3.0f && recv[999] == 3.0f ? 0 : 1;
    return results[static_cast<size_t>(r)];
  });
  CHECK(results == std::vector<int>{0, 0});
  for (trncclComm_t c : fresh) CHECK(trncclCommDestroy(c) == trncclSuccess);
}

namespace {

// `victims` are killed in the middle of an all-reduce; the survivors revoke,
// shrink without them and run 100 all-reduces (worker.cc --mode shrink).
// With `unlisted` >= 0 that rank exits instead of shrinking (status 4), and
// the shrink must fail on the others, naming it.
void checkShrinkAfterDeaths(int nranks, const std::string& victims, int unlisted = -1) {
  const std::set<std::string> before = trncclShmEntries();
  std::vector<std::string> args = {"--mode",       "shrink", "--victims",    victims,
                                   "--die-before", "3",      "--timeout-ms", "8000"};
  if (unlisted >= 0) args.insert(args.end(), {"--unlisted-death", std::to_string(unlisted)});
  const WorkerJob job = runWorkers(TRNCCL_COLL_WORKER, nranks, args, std::chrono::seconds(120));
  INFO("victims " << victims << "; workers (1 = a survivor's check failed, see stderr): " << describeJob(job));
  REQUIRE(job.error.empty());
  for (int r = 0; r < nranks; ++r) {
    const WorkerExit& e = job.exits[static_cast<size_t>(r)];
    const bool victim = ("," + victims + ",").find("," + std::to_string(r) + ",") != std::string::npos;
    CAPTURE(r);
    if (victim)
      CHECK(e.signal == SIGKILL);
    else if (r == unlisted)
      CHECK((e.exited && e.code == 4));
    else
      CHECK((e.exited && e.code == 0));
  }
  checkNoLeftovers(before);
}

}  // namespace

TEST_CASE("recovery: 8 ranks on shm, one killed mid-all-reduce, the survivors revoke, shrink and all-reduce on",
          "[failure][processes][recovery]") {
  checkShrinkAfterDeaths(8, "5");
}

TEST_CASE("recovery: two ranks killed at once, the survivors revoke, shrink and all-reduce on",
          "[failure][processes][recovery]") {
  checkShrinkAfterDeaths(6, "1,4");
}

TEST_CASE(
    "recovery: a rank killed mid-all-reduce across two instances, the survivors shrink, over every network transport",
    "[failure][processes][recovery][transports]") {
  const std::string transport =
      GENERATE(from_range(trnccl::transport::transportNames(trnccl::transport::Reach::Network)));
  CAPTURE(transport);
  ScopedEnv topology("TRNCCL_TOPO", "trn1.2xlarge:2");
  ScopedNetworkTransport network(transport);
  checkShrinkAfterDeaths(4, "2");
}

TEST_CASE("recovery: a survivor that dies before the shrink without being excluded fails the shrink, named, no hang",
          "[failure][processes][recovery]") {
  checkShrinkAfterDeaths(5, "1", /*unlisted=*/3);
}
