// Same results on every rank, bit for bit: all-reduce of random (non-exact)
// float data, where rounding depends on the order of additions.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "launcher.h"
#include "random_reduce.h"
#include "scoped_env.h"
#include "thread_ranks.h"

using namespace colltest;

TEST_CASE("determinism: random float all-reduce gives identical bytes on every rank (threads)", "[determinism]") {
  const int n = GENERATE(3, 4);
  std::vector<std::vector<char>> results(static_cast<size_t>(n));
  for (const RandomCase& c : randomCases()) {
    FailureLog log;
    const ThreadJob job = runOnThreads(n, [&](trncclComm_t comm, int r) {
      const std::string error = randomAllReduce(comm, c, 1234, &results[static_cast<size_t>(r)]);
      return error.empty() ? true : log.fail(r, error);
    });
    INFO(n << " ranks, " << describeCase(c) << ": " << job.initError);
    REQUIRE(job.init == trncclSuccess);
    INFO(log.text());
    REQUIRE(log.size() == 0);
    for (int r = 1; r < n; ++r) {
      INFO("rank " << r << " vs rank 0");
      CHECK(results[static_cast<size_t>(r)] == results[0]);
    }
  }
}

TEST_CASE("determinism: random float all-reduce gives identical bytes on every rank (processes)", "[determinism][processes]") {
  ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "30000");
  const WorkerJob job = runWorkers(TRNCCL_COLL_WORKER, 3, {"--mode", "random"}, std::chrono::seconds(120));
  INFO("workers (exit 1: a rank's result differs or is inaccurate, see stderr): " << describeJob(job));
  CHECK(exitedWith(job, {0}));
}
