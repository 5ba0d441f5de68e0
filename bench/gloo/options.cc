#include "options.h"

#include <CLI/CLI.hpp>
#include <limits>

#include "cli/command_line.h"
#include "nccl_tests/size_option.h"
#include "nccl_tests/sizes.h"

namespace trnccl::gloo_bench {

Options parse_args(const std::vector<std::string>& args) {
  constexpr int kMaxInt = std::numeric_limits<int>::max();
  Options options;
  CLI::App app;
  cli::prepare(app);
  app.add_flag("-h,--help", options.help);
  perf::add_factor_sweep_options(app, options.min_bytes, options.max_bytes, options.step_factor);
  cli::addInt(app, "-r,--ranks", options.ranks, 2, kMaxInt);
  cli::addInt(app, "-n,--iters", options.iters, 1, kMaxInt);
  cli::addInt(app, "-w,--warmup_iters", options.warmup_iters, 0, kMaxInt);
  cli::addText(app, "-a,--address", options.host);
  cli::parse(app, args, "unknown flag");
  perf::size_sweep(options.min_bytes, options.max_bytes, options.step_factor, 1);  // throws if empty
  return options;
}

std::string usage_text() {
  return "usage: trnccl-gloo-allreduce [-b MINBYTES] [-e MAXBYTES] [-f STEPFACTOR] [-r RANKS]\n"
         "                              [-n ITERS] [-w WARMUP] [-a ADDRESS]\n"
         "Gloo's ring all-reduce (float sum) over its TCP transport, with RANKS processes\n"
         "(default 2) rendezvousing through a file store, for sizes MINBYTES (default 4)\n"
         "to MAXBYTES (default 64M) growing by STEPFACTOR (default 2). Prints the slowest\n"
         "rank's median time per size and nccl-tests' bus bandwidth, 2(n-1)/n * bytes / time,\n"
         "to compare with trnccl-perf all_reduce over the tcp transport.\n"
         "  -n ITERS     timed calls per size (default 20)\n"
         "  -w WARMUP    untimed calls per size first (default 5)\n"
         "  -a ADDRESS   the address the ranks' Gloo devices bind to (default 127.0.0.1)\n";
}

}  // namespace trnccl::gloo_bench
