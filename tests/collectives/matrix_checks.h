// Catch2 checks that run the matrix (matrix.h) on thread ranks or process
// ranks and assert that every rank passed.
#pragma once

#include <string>
#include <vector>

#include "matrix.h"

namespace colltest {

// trncclCommInitAll (or, given a config, trncclCommInitRankConfig in each
// thread) + one thread per rank running runMatrix(options).
// The communicators get TRNCCL_SLICE_BYTES=sliceBytes (empty: the default).
void checkThreadMatrix(int nranks, const MatrixOptions& options, const trncclConfig_t* config = nullptr,
                       const std::string& sliceBytes = "4096");

// nranks worker processes (worker.cc --mode matrix extraArgs...).
void checkProcessMatrix(int nranks, const std::vector<std::string>& extraArgs, const std::string& sliceBytes = "4096");

}  // namespace colltest
