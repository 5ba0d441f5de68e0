// trnccl-floor: the floor under a 2-rank all-reduce on this host (see
// usage_text), one row per size of the sweep.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/usage_error.h"
#include "machine_floor.h"
#include "nccl_tests/sizes.h"
#include "options.h"

int main(int argc, char** argv) {
  using namespace trnccl;
  floor_bench::Options options;
  try {
    options = floor_bench::parse_args(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const cli::UsageError& error) {
    std::fprintf(stderr, "trnccl-floor: %s\n\n%s", error.what(), floor_bench::usage_text().c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(floor_bench::usage_text().c_str(), stdout);
    return 0;
  }
  try {
    const double crossing_us = floor_bench::line_crossing_us(options.round_trips, options.batches);
    std::printf("# trnccl-floor: 2 processes, line crossing %.3f us (half a round trip, median of %d batches of %d)\n",
                crossing_us, options.batches, options.round_trips);
    std::printf("# %10s %12s %10s  %s\n", "size", "memcpy_GBps", "floor_us", "bound");
    for (const size_t bytes : perf::size_sweep(options.min_bytes, options.max_bytes, options.step_factor, 1)) {
      const double rate = floor_bench::concurrent_memcpy_bytes_per_second(bytes, options.batches);
      const double copy_us = static_cast<double>(bytes) / rate * 1e6;
      std::printf("  %10zu %12.2f %10.3f  %s\n", bytes, rate / 1e9, std::max(crossing_us, copy_us),
                  copy_us > crossing_us ? "memcpy" : "line");
      std::fflush(stdout);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "trnccl-floor: %s\n", error.what());
    return 1;
  }
  return 0;
}
