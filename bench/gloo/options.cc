#include "options.h"

#include <charconv>

#include "logic/sizes.h"
#include "logic/usage_error.h"

namespace trnccl::gloo_bench {

namespace {

using perf::UsageError;

int parse_count(const std::string& flag, const std::string& text, int min) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min)
    throw UsageError(flag + " wants an integer of at least " + std::to_string(min) + ", not '" +
                     text + "'");
  return value;
}

}  // namespace

Options parse_args(const std::vector<std::string>& args) {
  Options options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "-h" || flag == "--help") {
      options.help = true;
      continue;
    }
    if (i + 1 == args.size()) throw UsageError("flag " + flag + " needs a value");
    const std::string& value = args[++i];
    if (flag == "-b" || flag == "--minbytes") {
      options.min_bytes = perf::parse_size(value);
    } else if (flag == "-e" || flag == "--maxbytes") {
      options.max_bytes = perf::parse_size(value);
    } else if (flag == "-f" || flag == "--stepfactor") {
      options.step_factor = static_cast<size_t>(parse_count(flag, value, 2));
    } else if (flag == "-r" || flag == "--ranks") {
      options.ranks = parse_count(flag, value, 2);
    } else if (flag == "-n" || flag == "--iters") {
      options.iters = parse_count(flag, value, 1);
    } else if (flag == "-w" || flag == "--warmup_iters") {
      options.warmup_iters = parse_count(flag, value, 0);
    } else if (flag == "-a" || flag == "--address") {
      options.host = value;
    } else {
      throw UsageError("unknown flag '" + flag + "'");
    }
  }
  perf::size_sweep(options.min_bytes, options.max_bytes, options.step_factor,
                   1);  // throws if empty
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
