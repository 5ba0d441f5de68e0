#pragma once

#include <string>

#include "logic/options.h"
#include "logic/report_json.h"
#include "trnccl/trnccl.h"

namespace trnccl::perf {

// The two ways to start the ranks. Each returns the process exit status:
// 0 when every result was right, 1 when any was wrong, 2 for a usage error.
int run_with_threads(const Options& options);
int run_under_mpirun(const Options& options);

// What the report records about this run (library version, what carries
// rank 0's bytes in `comm`, TRNCCL_* env).
RunInfo make_run_info(int nranks, const std::string& launch, trncclComm_t comm);

// Prints a usage error the way main does; returns the exit status 2.
int usage_failure(const std::string& message);

}  // namespace trnccl::perf
