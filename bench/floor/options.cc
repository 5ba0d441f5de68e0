#include "options.h"

#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "nccl_tests/size_option.h"
#include "nccl_tests/sizes.h"

namespace trnccl::floor_bench {

Options parse_args(const std::vector<std::string>& args) {
  constexpr int kMany = 1 << 24;
  Options options;
  CLI::App app;
  cli::prepare(app);
  app.add_flag("-h,--help", options.help);
  perf::add_factor_sweep_options(app, options.min_bytes, options.max_bytes, options.step_factor);
  cli::addInt(app, "-n,--round_trips", options.round_trips, 1, kMany);
  cli::addInt(app, "-r,--batches", options.batches, 1, 1000);
  cli::parse(app, args, "unknown flag");
  perf::size_sweep(options.min_bytes, options.max_bytes, options.step_factor, 1);  // throws if empty
  return options;
}

std::string usage_text() {
  return "usage: trnccl-floor [-b MINBYTES] [-e MAXBYTES] [-f STEPFACTOR] [-n ROUND_TRIPS] [-r BATCHES]\n"
         "The floor under a 2-rank all-reduce on this host, from two processes (not pinned,\n"
         "as trnccl-perf's ranks are not):\n"
         "  line crossing: half a round trip of a cache-line ping-pong (ROUND_TRIPS, default\n"
         "    20000, per batch): each rank must see one line written by the other;\n"
         "  memcpy: per size, the bytes per second one process copies while the other copies\n"
         "    as much (each rank of a 2-rank all-reduce reads at least SIZE bytes and writes\n"
         "    SIZE bytes, the traffic of one SIZE-byte memcpy);\n"
         "  floor: the larger of the crossing and SIZE at the memcpy rate.\n"
         "Each figure is the median of BATCHES (default 7) batches.\n";
}

}  // namespace trnccl::floor_bench
