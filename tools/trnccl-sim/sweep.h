// Runs every machine variant x algorithm x size of the command line.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "options.h"

namespace trnccl::simtool {

struct Row {
  std::string machine;                     // the variant's label
  std::shared_ptr<const sim::Machine> on;  // its links, for prediction.linkBytes
  int ranks = 0;
  std::string requested;  // the --algo entry
  sim::Prediction prediction;
  size_t bytes = 0, count = 0;
  double algbw = 0, busbw = 0;  // GB/s, nccl-tests' definitions
};

// A row the engine cannot price (an algorithm the folded engine cannot fold
// at one size) is left out and its error added to `skipped`; when no row is
// left, the first error is thrown.
std::vector<Row> sweep(const Options& options, std::vector<std::string>& skipped);

}  // namespace trnccl::simtool
