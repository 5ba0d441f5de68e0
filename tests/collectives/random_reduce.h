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
std::string randomAllReduce(trncclComm_t comm, const RandomCase& c, uint64_t salt, std::vector<char>* result);

// "float sum count=1000"
std::string describeCase(const RandomCase& c);

}  // namespace trnccl::test
