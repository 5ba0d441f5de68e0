// Runs every machine variant x algorithm x size of the command line.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "options.h"
#include "sim/uncertainty.h"

namespace trnccl::simtool {

struct Row {
  std::string machine;                     // the variant's label
  std::shared_ptr<const sim::Machine> on;  // its links, for prediction.linkBytes
  int ranks = 0;
  std::string requested;  // the --algo entry
  sim::Prediction prediction;
  size_t bytes = 0, count = 0;
  double algbw = 0, busbw = 0;  // GB/s, nccl-tests' definitions
  sim::Uncertainty band;        // of prediction.seconds
};

// The call of one row: the command line's collective, type, op, engine and
// stragglers, with `algorithm` and the API's `count`.
sim::Call callOf(const Options& o, const std::string& algorithm, size_t count);

// A row the engine cannot price (an algorithm the folded engine cannot fold
// at one size) is left out and its error added to `skipped`; when no row is
// left, the first error is thrown.
std::vector<Row> sweep(const Options& options, std::vector<std::string>& skipped);

}  // namespace trnccl::simtool
