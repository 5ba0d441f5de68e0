// Ranks as threads of the test process: one std::thread per rank, each making
// blocking calls on its own communicator. Bodies return a number (0 = passed)
// instead of asserting, as Catch2 assertions are not thread-safe.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "trnccl/trnccl.h"

namespace trnccl::test {

// Runs body(rank) on nranks threads at once; returns what each returned.
std::vector<int> inThreads(int nranks, const std::function<int(int rank)>& body);

struct ThreadJob {
  trncclResult_t init = trncclInternalError;  // what trncclCommInitAll returned
  std::string initError;                      // and trncclGetLastError(NULL) if it failed
  std::vector<int> results;                   // body's result per rank
  trncclResult_t destroy = trncclSuccess;     // the first failing trncclCommDestroy
};

// Creates nranks communicators with trncclCommInitAll (configured by the
// current environment), runs body(comm, rank) on one thread per rank, then
// destroys every communicator.
ThreadJob runOnThreads(int nranks, const std::function<int(trncclComm_t comm, int rank)>& body);

// Failures noted by rank threads, to be asserted empty by the test thread.
class FailureLog {
 public:
  // Notes a failure; returns false (so bodies can `return log.fail(...)`).
  bool fail(int rank, const std::string& what);
  // Notes a failure unless rc == want; the message adds trncclGetLastError(comm).
  bool expect(int rank, const char* call, trncclResult_t rc, trncclResult_t want, trncclComm_t comm);
  std::string text() const;
  size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

// Same, but every thread creates its rank's communicator itself, with
// trncclCommInitRankConfig(config) on a unique id from trncclGetUniqueId.
ThreadJob runOnThreadsWithConfig(int nranks, const trncclConfig_t& config,
                                 const std::function<int(trncclComm_t comm, int rank)>& body);

// "rank 0: 0, rank 1: 3" for failure messages.
std::string describeResults(const std::vector<int>& results);

}  // namespace trnccl::test
