// Catch2 checks shared by the test files: the matrix (matrix.h) on thread or
// process ranks, and the outcome of a thread-rank job.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "matrix.h"
#include "thread_ranks.h"

namespace trnccl::test {

// trncclCommInitAll (or, given a config, trncclCommInitRankConfig in each
// thread) + one thread per rank running runMatrix(options).
// The communicators get TRNCCL_SLICE_BYTES=sliceBytes (empty: the default).
void checkThreadMatrix(int nranks, const MatrixOptions& options, const trncclConfig_t* config = nullptr,
                       const std::string& sliceBytes = "4096");

// nranks worker processes (worker.cc --mode matrix extraArgs...).
void checkProcessMatrix(int nranks, const std::vector<std::string>& extraArgs, const std::string& sliceBytes = "4096");

// Runs body(comm, rank, log) on nranks thread ranks (trncclCommInitAll) and
// requires a clean job: no failure noted in the log, creation and
// destruction fine.
void checkOnThreads(int nranks, const std::function<bool(trncclComm_t comm, int rank, FailureLog& log)>& body);

// The job's communicators were created and destroyed without error, and no
// rank noted a failure in `log`.
void requireClean(const ThreadJob& job, const FailureLog& log);

}  // namespace trnccl::test
