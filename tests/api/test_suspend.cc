// trncclCommSuspend / trncclCommResume: a suspended communicator refuses
// operations; TRNCCL_SUSPEND_MEM frees its staging buffers (trncclCommMemStats)
// and a resumed one all-reduces exactly again.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "thread_ranks.h"

using namespace trnccl::test;

namespace {

unsigned long long hostBytes(trncclComm_t comm) {
  trncclMemStats_t stats{};
  return trncclCommMemStats(comm, &stats) == trncclSuccess ? stats.hostBytes : ~0ull;
}

bool allReduceExact(trncclComm_t comm, int n, int rank) {
  std::vector<float> data(1 << 20, float(rank + 1));
  if (trncclAllReduce(data.data(), data.data(), data.size(), trncclFloat32, trncclSum, comm, nullptr) != trncclSuccess)
    return false;
  for (float x : data)
    if (x != float(n * (n + 1) / 2)) return false;
  return true;
}

}  // namespace

TEST_CASE("suspend: TRNCCL_SUSPEND_MEM frees the staging buffers, operations wait for the resume", "[suspend]") {
  const int n = 2;
  FailureLog log;
  const ThreadJob job = runOnThreads(n, [&](trncclComm_t comm, int rank) {
    if (!allReduceExact(comm, n, rank)) log.fail(rank, "the first all-reduce");
    const unsigned long long working = hostBytes(comm);
    log.expect(rank, "trncclCommSuspend", trncclCommSuspend(comm, TRNCCL_SUSPEND_MEM), trncclSuccess, comm);
    const unsigned long long suspended = hostBytes(comm);
    if (!(suspended + (1 << 16) < working))
      log.fail(rank, "host bytes " + std::to_string(working) + " -> " + std::to_string(suspended) + " when suspended");
    float x = 1;
    log.expect(rank, "an all-reduce while suspended",
               trncclAllReduce(&x, &x, 1, trncclFloat32, trncclSum, comm, nullptr), trncclInvalidUsage, comm);
    if (std::string(trncclGetLastError(comm)).find("trncclCommResume") == std::string::npos)
      log.fail(rank, std::string("the refusal does not say to resume: ") + trncclGetLastError(comm));
    log.expect(rank, "a second suspend", trncclCommSuspend(comm, 0), trncclInvalidUsage, comm);
    log.expect(rank, "trncclCommResume", trncclCommResume(comm), trncclSuccess, comm);
    if (!allReduceExact(comm, n, rank)) log.fail(rank, "the all-reduce after the resume");
    if (hostBytes(comm) < working) log.fail(rank, "the staging buffers did not come back on use");
    log.expect(rank, "a resume when not suspended", trncclCommResume(comm), trncclInvalidUsage, comm);
    log.expect(rank, "bad flags", trncclCommSuspend(comm, 6), trncclInvalidArgument, comm);
    if (std::string(trncclGetLastError(comm)).find("flags") == std::string::npos) log.fail(rank, "flags not named");
    return 0;
  });
  INFO(log.text());
  CHECK(job.init == trncclSuccess);
  CHECK(log.size() == 0);
}
