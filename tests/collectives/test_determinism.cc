// Same results on every rank, bit for bit: all-reduce of random (non-exact)
// float data, where rounding depends on the order of additions.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "checks.h"
#include "launcher.h"
#include "random_reduce.h"
#include "tests/support/scoped_env.h"
#include "thread_ranks.h"

using namespace trnccl::test;

namespace {

// Runs `c` on n thread ranks (communicators from trncclCommInitAll, or with
// `config`), requires every rank's result to be the same bytes; returns them.
std::vector<char> sameOnEveryRank(int n, const RandomCase& c, uint64_t salt, const trncclConfig_t* config) {
  std::vector<std::vector<char>> results(static_cast<size_t>(n));
  FailureLog log;
  auto body = [&](trncclComm_t comm, int r) {
    const std::string error = randomAllReduce(comm, c, salt, &results[static_cast<size_t>(r)]);
    return error.empty() ? true : log.fail(r, error);
  };
  const ThreadJob job = config ? runOnThreadsWithConfig(n, *config, body) : runOnThreads(n, body);
  INFO(n << " ranks, " << describeCase(c));
  requireClean(job, log);
  for (int r = 1; r < n; ++r) {
    INFO("rank " << r << " vs rank 0");
    CHECK(results[static_cast<size_t>(r)] == results[0]);
  }
  return results[0];
}

}  // namespace

TEST_CASE("determinism: random float all-reduce gives identical bytes on every rank (threads)", "[determinism]") {
  const int n = GENERATE(3, 4);
  for (const RandomCase& c : randomCases()) sameOnEveryRank(n, c, 1234, nullptr);
}

TEST_CASE("determinism: random float all-reduce gives identical bytes on every rank (processes)",
          "[determinism][processes]") {
  ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "30000");
  const WorkerJob job = runWorkers(TRNCCL_COLL_WORKER, 3, {"--mode", "random"}, std::chrono::seconds(120));
  INFO("workers (exit 1: a rank's result differs or is inaccurate, see stderr): " << describeJob(job));
  CHECK(exitedWith(job, {0}));
}

TEST_CASE("determinism: stochastic rounding repeats with the same seed, on every rank, and differs from RNE",
          "[determinism][rounding]") {
  const int n = 3;
  const RandomCase c{trncclBfloat16, trncclSum, GENERATE(size_t{30011}, size_t{200003})};
  auto run = [&](const trncclConfig_t& config) { return sameOnEveryRank(n, c, 77, &config); };
  trncclConfig_t stochastic = TRNCCL_CONFIG_INITIALIZER;
  stochastic.stochasticRounding = 1;
  stochastic.seed = 42;
  trncclConfig_t nearest = TRNCCL_CONFIG_INITIALIZER;
  nearest.stochasticRounding = 0;
  const std::vector<char> first = run(stochastic), second = run(stochastic), rne = run(nearest);
  CHECK(first == second);
  CHECK(first != rne);  // 30011+ sums of random bf16 values: some round differently
}
