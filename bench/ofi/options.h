// The command line of trnccl-ofi-bw, with trnccl-perf's flags where they mean
// the same thing.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace trnccl::ofi_bench {

struct Options {
  std::string provider = "tcp;ofi_rxm";  // as fi_info names it
  size_t min_bytes = size_t{1} << 20;
  size_t max_bytes = size_t{64} << 20;
  size_t step_factor = 4;
  size_t chunk_bytes = size_t{1} << 20;  // the largest single fi_tsend
  int window = 8;                        // operations in flight per direction
  int iters = 10;
  int warmup_iters = 2;
  bool help = false;
};

// Parses the arguments after the program name; throws perf::UsageError
// naming the flag it cannot use.
Options parse_args(const std::vector<std::string>& args);

std::string usage_text();

}  // namespace trnccl::ofi_bench
