#include "options.h"

#include <charconv>

#include "logic/sizes.h"
#include "logic/usage_error.h"

namespace trnccl::ofi_bench {
namespace {

using perf::UsageError;

int parse_count(const std::string& flag, const std::string& text, int min, int max) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max)
    throw UsageError(flag + " wants an integer from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", not '" + text + "'");
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
    if (flag == "-p" || flag == "--provider") {
      options.provider = value;
    } else if (flag == "-b" || flag == "--minbytes") {
      options.min_bytes = perf::parse_size(value);
    } else if (flag == "-e" || flag == "--maxbytes") {
      options.max_bytes = perf::parse_size(value);
    } else if (flag == "-f" || flag == "--stepfactor") {
      options.step_factor = static_cast<size_t>(parse_count(flag, value, 2, 1 << 20));
    } else if (flag == "-c" || flag == "--chunk") {
      options.chunk_bytes = perf::parse_size(value);
      if (options.chunk_bytes == 0) throw UsageError(flag + " wants a size above 0");
    } else if (flag == "-W" || flag == "--window") {
      options.window = parse_count(flag, value, 1, 1024);
    } else if (flag == "-n" || flag == "--iters") {
      options.iters = parse_count(flag, value, 1, 1 << 20);
    } else if (flag == "-w" || flag == "--warmup_iters") {
      options.warmup_iters = parse_count(flag, value, 0, 1 << 20);
    } else {
      throw UsageError("unknown flag '" + flag + "'");
    }
  }
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
