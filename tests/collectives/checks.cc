#include "checks.h"

#include <catch2/catch.hpp>
#include <chrono>

#include "launcher.h"

namespace trnccl::test {

void checkThreadMatrix(int nranks, const MatrixOptions& options, const trncclConfig_t* config,
                       const std::string& sliceBytes) {
  setMatrixEnvironment(sliceBytes);
  auto body = [&](trncclComm_t comm, int) { return runMatrix(comm, options); };
  const ThreadJob job = config ? runOnThreadsWithConfig(nranks, *config, body) : runOnThreads(nranks, body);
  INFO("communicator creation, " << nranks << " ranks: " << job.initError);
  REQUIRE(job.init == trncclSuccess);
  INFO("failed cases per rank (details on stderr): " << describeResults(job.results));
  CHECK(job.results == std::vector<int>(static_cast<size_t>(nranks), 0));
  CHECK(job.destroy == trncclSuccess);
}

void checkProcessMatrix(int nranks, const std::vector<std::string>& extraArgs, const std::string& sliceBytes) {
  setMatrixEnvironment(sliceBytes);
  std::vector<std::string> args = {"--mode", "matrix"};
  args.insert(args.end(), extraArgs.begin(), extraArgs.end());
  const WorkerJob job = runWorkers(TRNCCL_COLL_WORKER, nranks, args, std::chrono::seconds(400));
  INFO("workers (exit 1 = wrong results, details on stderr): " << describeJob(job));
  CHECK(exitedWith(job, {0}));
}

void checkOnThreads(int nranks, const std::function<bool(trncclComm_t comm, int rank, FailureLog& log)>& body) {
  FailureLog log;
  const ThreadJob job = runOnThreads(nranks, [&](trncclComm_t comm, int r) { return body(comm, r, log); });
  requireClean(job, log);
}

void requireClean(const ThreadJob& job, const FailureLog& log) {
  INFO("communicator creation: " << job.initError);
  REQUIRE(job.init == trncclSuccess);
  INFO(log.text());
  CHECK(log.size() == 0);
  CHECK(job.destroy == trncclSuccess);
}

}  // namespace trnccl::test
