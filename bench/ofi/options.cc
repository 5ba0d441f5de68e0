#include "options.h"

#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "nccl_tests/size_option.h"
#include "nccl_tests/sizes.h"

namespace trnccl::ofi_bench {

Options parse_args(const std::vector<std::string>& args) {
  constexpr int kMany = 1 << 20;
  Options options;
  CLI::App app;
  cli::prepare(app);
  app.add_flag("-h,--help", options.help);
  cli::addText(app, "-p,--provider", options.provider);
  perf::add_factor_sweep_options(app, options.min_bytes, options.max_bytes, options.step_factor);
  cli::addValue(app, "-c,--chunk", [&options](const std::string& v) {
    options.chunk_bytes = perf::parse_size(v);
    if (options.chunk_bytes == 0) throw cli::UsageError("-c wants a size above 0");
  });
  cli::addInt(app, "-W,--window", options.window, 1, 1024);
  cli::addInt(app, "-n,--iters", options.iters, 1, kMany);
  cli::addInt(app, "-w,--warmup_iters", options.warmup_iters, 0, kMany);
  cli::parse(app, args, "unknown flag");
  perf::size_sweep(options.min_bytes, options.max_bytes, options.step_factor, 1);  // throws if empty
  return options;
}

std::string usage_text() {
  return "usage: trnccl-ofi-bw [-p PROVIDER] [-b MINBYTES] [-e MAXBYTES] [-f STEPFACTOR]\n"
         "                     [-c CHUNK] [-W WINDOW] [-n ITERS] [-w WARMUP]\n"
         "Raw libfabric tagged bandwidth between two processes of this host: both ranks\n"
         "send SIZE bytes to each other at once (the traffic of a 2-rank all-reduce), as\n"
         "fi_tsend / fi_trecv of at most CHUNK bytes (default 1M) with WINDOW (default 8)\n"
         "in flight per direction, over an FI_EP_RDM endpoint of PROVIDER (default\n"
         "\"tcp;ofi_rxm\", as fi_info names it). Prints the median time per size and the\n"
         "bandwidth per direction, the ceiling of trnccl's ofi transport on that provider.\n"
         "  -n ITERS     timed exchanges per size (default 10)\n"
         "  -w WARMUP    untimed exchanges per size first (default 2)\n";
}

}  // namespace trnccl::ofi_bench
