// The command line of trnccl-floor, with trnccl-perf's flags where they mean
// the same thing.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace trnccl::floor_bench {

struct Options {
  size_t min_bytes = 8;
  size_t max_bytes = size_t{64} << 20;
  size_t step_factor = 4;
  int round_trips = 20000;  // cache-line round trips per batch
  int batches = 7;          // of round trips, and of copies per size; the median is printed
  bool help = false;
};

// Parses the arguments after the program name; throws cli::UsageError naming
// the flag it cannot use.
Options parse_args(const std::vector<std::string>& args);

std::string usage_text();

}  // namespace trnccl::floor_bench
