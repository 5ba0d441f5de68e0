// All-reduce of random, non-exact float data: the result cannot be checked
// bit for bit against a reference (rounding depends on the order the library
// adds in), only approximately, but it must be the same bits on every rank.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "trnccl/trnccl.h"

namespace trnccl::test {

struct RandomCase {
  trncclDataType_t type;
  trncclRedOp_t op;  // trncclSum or trncclAvg
  size_t count;
};

// The float types and sizes (mesh-sized, ring-sized, and ring with several
// default-size slices) to run.
std::vector<RandomCase> randomCases();

// Runs the all-reduce of `c` on this rank (blocking) and leaves the result's
// bytes in *result. Returns an empty string, or what went wrong: a failed
// call, or an element farther from the exact reduction than the roundings
// of a reduction of nranks values allow.
// With `config`, through trncclAllReduceConfig.
std::string randomAllReduce(trncclComm_t comm, const RandomCase& c, uint64_t salt, std::vector<char>* result,
                            const trncclCollConfig_t* config = nullptr);

// What deterministic mode promises for a sum of `c`'s inputs on nranks
// ranks, computed here: each element's inputs added in rank order in FP32
// (the first rank's first), rounded once to the type (nearest-even). Bytes
// as the result buffer holds them. fp32, bf16 and fp16 only.
std::vector<char> rankOrderSum(const RandomCase& c, int nranks, uint64_t salt);

// "float sum count=1000"
std::string describeCase(const RandomCase& c);

}  // namespace trnccl::test
