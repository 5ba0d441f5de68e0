// The command line of trnccl-gloo-allreduce, with trnccl-perf's (and
// nccl-tests') flags where they mean the same thing.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace trnccl::gloo_bench {

struct Options {
  size_t min_bytes = 4;
  size_t max_bytes = size_t{64} << 20;
  size_t step_factor = 2;
  int ranks = 2;  // processes this program forks
  int iters = 20;
  int warmup_iters = 5;
  std::string host = "127.0.0.1";  // the address every rank's Gloo device binds to
  bool help = false;
};

// Parses the arguments after the program name; throws perf::UsageError
// naming the flag it cannot use.
Options parse_args(const std::vector<std::string>& args);

std::string usage_text();

}  // namespace trnccl::gloo_bench
