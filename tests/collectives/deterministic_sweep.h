// Deterministic mode's check, shared by the thread test and the process
// worker: on one rank, every algorithm that can run an all-reduce of random
// fp32, bf16 and fp16 data is asked for it by name (trncclCollConfig_t),
// with or without deterministic mode, and the result's bits are kept per
// case and algorithm.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "random_reduce.h"
#include "trnccl/trnccl.h"

namespace trnccl::test {

struct SweepResult {
  std::string error;              // the first failure (a failed call, an inaccurate element)
  std::vector<std::string> ran;   // the algorithms that ran (the others cannot run the call)
  std::vector<RandomCase> cases;  // in order
  // bits[case index][algorithm]
  std::vector<std::map<std::string, std::vector<char>>> bits;
};

// Every rank of `comm` calls it with the same arguments (the calls are
// collective). `count`: elements per all-reduce.
SweepResult sweepAlgorithms(trncclComm_t comm, const std::vector<std::string>& algorithms, size_t count,
                            bool deterministic, uint64_t salt);

// In deterministic mode: where an algorithm's bits differ from the rank-order
// FP32 sum computed by the test (sum cases) or from the first algorithm's
// (the others); empty if none does.
std::string deterministicMismatch(const SweepResult& sweep, int nranks, uint64_t salt);

// Without the mode: per case, how many different results the algorithms gave.
std::vector<int> distinctResults(const SweepResult& sweep);

}  // namespace trnccl::test
