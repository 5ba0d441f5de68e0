// --workload: a data-parallel training step over more and more instances.
// Each step computes for `compute` (forward and backward), then all-reduces
// the gradients in buckets (DDP's gradient buckets); with overlap on, the
// buckets' all-reduces run during the backward pass (two thirds of the
// compute, as backward costs about twice forward), each once its chunk of
// backward is computed, one at a time, and only what sticks out is exposed,
// at least the last bucket's all-reduce. (The same step as a Chakra trace:
// chakra::dataParallelStep.)
#pragma once

#include <string>
#include <vector>

#include "sim/simulation.h"

namespace trnccl::simtool {

struct Workload {
  double computeSec = 0.1;
  size_t gradientBytes = size_t{1} << 30;
  size_t bucketBytes = size_t{25} << 20;
  bool overlap = true;
  trncclDataType_t type = trncclBfloat16;
};

// "compute_ms=100,grad=1G,bucket=25M,overlap=1,dtype=bf16"; throws
// Error(InvalidArgument) naming a bad field.
Workload parseWorkload(const std::string& text);

// The step on `topology` with each count of instances, as a table.
std::string simulateWorkload(const Workload& w, const std::string& topology, const std::vector<int>& instances,
                             sim::Engine engine);

}  // namespace trnccl::simtool
