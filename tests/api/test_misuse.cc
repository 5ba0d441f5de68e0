// Ranks that disagree (on the rank count, on who is which rank, on a
// collective's count): every rank gets an error within the timeout, never a
// hang, a crash or a wrong "success".
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/support/scoped_env.h"
#include "thread_ranks.h"

using namespace trnccl::test;
using Clock = std::chrono::steady_clock;

namespace {

struct InitOutcome {
  trncclResult_t rc = trncclSuccess;
  std::string message;
  long long ms = 0;
};

// Each thread i calls trncclCommInitRankConfig(nranks[i], rank[i]) on one
// unique id with a 2 s timeout; destroys whatever was created.
std::vector<InitOutcome> initDisagreeing(const std::vector<int>& nranks, const std::vector<int>& ranks) {
  trncclUniqueId id;
  REQUIRE(trncclGetUniqueId(&id) == trncclSuccess);
  std::vector<InitOutcome> out(nranks.size());
  std::vector<trncclComm_t> comms(nranks.size(), nullptr);
  inThreads(static_cast<int>(nranks.size()), [&](int i) {
    const auto k = static_cast<size_t>(i);
    trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
    config.timeoutMs = 2000;
    const auto start = Clock::now();
    out[k].rc = trncclCommInitRankConfig(&comms[k], nranks[k], id, ranks[k], &config);
    out[k].ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    out[k].message = out[k].rc == trncclSuccess ? "" : trncclGetLastError(nullptr);
    return 0;
  });
  for (trncclComm_t c : comms)
    if (c) trncclCommDestroy(c);
  return out;
}

void requireAllFailedPromptly(const std::vector<InitOutcome>& outcomes) {
  for (size_t i = 0; i < outcomes.size(); ++i) {
    INFO("thread " << i << ": returned " << outcomes[i].rc << " after " << outcomes[i].ms
                   << " ms: " << outcomes[i].message);
    CHECK(outcomes[i].rc != trncclSuccess);
    CHECK(outcomes[i].ms < 12000);
    CHECK_FALSE(outcomes[i].message.empty());
  }
}

}  // namespace

TEST_CASE("misuse: ranks that disagree on the rank count get an error", "[misuse]") {
  requireAllFailedPromptly(initDisagreeing({2, 3}, {0, 1}));
}

TEST_CASE("misuse: two ranks claiming the same rank get an error", "[misuse]") {
  requireAllFailedPromptly(initDisagreeing({2, 2}, {0, 0}));
}

TEST_CASE("misuse: ranks passing different counts to a collective get an error on every rank", "[misuse]") {
  // Without TRNCCL_CHECK the transports catch it: below the eager size, above
  // it (announced messages), and with many slices.
  ScopedEnv check("TRNCCL_CHECK", "0");
  const size_t small = GENERATE(size_t{100}, size_t{300000});
  const std::string algorithm = GENERATE(std::string("ring"), std::string("mesh"));
  trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
  config.timeoutMs = 2000;
  config.algorithm = algorithm.c_str();
  FailureLog log;
  const ThreadJob job = runOnThreadsWithConfig(2, config, [&](trncclComm_t comm, int r) {
    const size_t count = r == 0 ? small : 2 * small;
    std::vector<float> send(count, 1.0f), recv(count, 0.0f);
    const auto start = Clock::now();
    const trncclResult_t rc = trncclAllReduce(send.data(), recv.data(), count, trncclFloat32, trncclSum, comm, nullptr);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    if (rc == trncclSuccess)
      return log.fail(
          r, "an all-reduce of " + std::to_string(count) + " elements (the peer passed another count) succeeded");
    if (ms > 12000) log.fail(r, "the error took " + std::to_string(ms) + " ms");
    return true;
  });
  INFO(small << " vs " << 2 * small << " elements, algorithm " << algorithm);
  INFO("communicator creation: " << job.initError);
  REQUIRE(job.init == trncclSuccess);
  INFO(log.text());
  CHECK(log.size() == 0);
}

TEST_CASE("misuse: a receive smaller than the matching send is an error (on both ranks when announced)", "[misuse]") {
  const size_t count = GENERATE(size_t{100}, size_t{100000});
  trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
  config.timeoutMs = 2000;
  FailureLog log;
  const ThreadJob job = runOnThreadsWithConfig(2, config, [&](trncclComm_t comm, int r) {
    std::vector<int32_t> buffer(count, r);
    const trncclResult_t rc = r == 0 ? trncclSend(buffer.data(), count, trncclInt32, 1, comm, nullptr)
                                     : trncclRecv(buffer.data(), count / 2, trncclInt32, 0, comm, nullptr);
    // A small (eager) send is complete once it is handed over: only the
    // receiver can tell. A large one waits for the receive, and learns.
    const bool mustFail = r == 1 || count * sizeof(int32_t) > 64 * 1024;
    if (rc == trncclSuccess && mustFail) return log.fail(r, "succeeded; the sizes differ");
    return true;
  });
  INFO(count << " elements sent, " << count / 2 << " received");
  REQUIRE(job.init == trncclSuccess);
  INFO(log.text());
  CHECK(log.size() == 0);
}

TEST_CASE("misuse: with TRNCCL_CHECK=1 ranks that disagree on a call all fail with a message naming them and the field",
          "[misuse][check]") {
  ScopedEnv check("TRNCCL_CHECK", "1");
  struct Disagreement {
    const char* what;
    std::function<trncclResult_t(trncclComm_t, int rank, std::vector<float>&, std::vector<float>&)> call;
    const char* field;
  };
  const std::vector<Disagreement> cases = {
      {"the count on rank 2",
       [](trncclComm_t comm, int r, std::vector<float>& in, std::vector<float>& out) {
         return trncclAllReduce(in.data(), out.data(), r == 2 ? 50 : 100, trncclFloat32, trncclSum, comm, nullptr);
       },
       "count"},
      {"the collective on rank 0",
       [](trncclComm_t comm, int r, std::vector<float>& in, std::vector<float>& out) {
         return r == 0 ? trncclBroadcast(in.data(), out.data(), 100, trncclFloat32, 0, comm, nullptr)
                       : trncclAllReduce(in.data(), out.data(), 100, trncclFloat32, trncclSum, comm, nullptr);
       },
       "collective"},
      {"the root of a broadcast on rank 1",
       [](trncclComm_t comm, int r, std::vector<float>& in, std::vector<float>& out) {
         return trncclBroadcast(in.data(), out.data(), 100, trncclFloat32, r == 1 ? 1 : 0, comm, nullptr);
       },
       "root"},
      {"the op on rank 1",
       [](trncclComm_t comm, int r, std::vector<float>& in, std::vector<float>& out) {
         return trncclReduce(in.data(), out.data(), 100, trncclFloat32, r == 1 ? trncclMax : trncclSum, 0, comm,
                             nullptr);
       },
       "op"},
      {"the root of a gather on rank 2",
       [](trncclComm_t comm, int r, std::vector<float>& in, std::vector<float>& out) {
         return trncclGather(in.data(), out.data(), 10, trncclFloat32, r == 2 ? 2 : 0, comm, nullptr);
       },
       "root"},
      {"the blocks of an all-gather-v on rank 1 (their sum)",
       [](trncclComm_t comm, int r, std::vector<float>& in, std::vector<float>& out) {
         const size_t agreed[3] = {10, 10, 10}, other[3] = {10, 10, 20}, displs[3] = {0, 10, 20};
         return trncclAllGatherV(in.data(), 10, out.data(), r == 1 ? other : agreed, displs, trncclFloat32, comm,
                                 nullptr);
       },
       "count"},
  };
  for (const Disagreement& d : cases) {
    SECTION(d.what) {
      trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
      config.timeoutMs = 5000;
      FailureLog log;
      const ThreadJob job = runOnThreadsWithConfig(3, config, [&](trncclComm_t comm, int r) {
        std::vector<float> in(100, 1.0f), out(100, 0.0f);
        // One call they agree on first: the check passes it, and the sequence numbers stay aligned.
        if (trncclAllReduce(in.data(), out.data(), 100, trncclFloat32, trncclSum, comm, nullptr) != trncclSuccess ||
            out[99] != 3.0f)
          return log.fail(r, std::string("the agreed all-reduce failed: ") + trncclGetLastError(comm));
        const trncclResult_t rc = d.call(comm, r, in, out);
        const std::string message = trncclGetLastError(comm);
        if (rc != trncclInvalidUsage) return log.fail(r, "returned " + std::to_string(rc) + ": " + message);
        for (const std::string& part : {std::string("TRNCCL_CHECK"), std::string("differing: ") + d.field,
                                        std::string("#1 "), std::string("rank")})
          if (message.find(part) == std::string::npos) log.fail(r, "'" + message + "' does not mention '" + part + "'");
        trncclResult_t async = trncclSuccess;
        trncclCommGetAsyncError(comm, &async);
        if (async != trncclInvalidUsage) log.fail(r, "the async error is " + std::to_string(async));
        return true;
      });
      INFO("communicator creation: " << job.initError);
      REQUIRE(job.init == trncclSuccess);
      INFO(log.text());
      CHECK(log.size() == 0);
    }
  }
}
