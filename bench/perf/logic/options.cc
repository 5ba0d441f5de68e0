#include "logic/options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <limits>
#include <string_view>

#include "cli/command_line.h"
#include "logic/usage_error.h"
#include "nccl_tests/datatypes.h"
#include "nccl_tests/sizes.h"

namespace trnccl::perf {

namespace {

using cli::kMaxInt;
using cli::parseInt;

struct Flag {
  char short_name;
  std::string_view long_name;
  std::string_view value_name;  // empty: the flag takes no value
  std::string_view help;
  void (*apply)(Options&, std::string_view flag, std::string_view value);
};

constexpr std::array<Flag, 17> kFlags{{
    {'t', "nthreads", "<ranks>", "ranks as threads of this process, without mpirun (default 1)",
     [](Options& o, std::string_view f, std::string_view v) { o.threads = parseInt(f, v, 1, 1024); }},
    {'b', "minbytes", "<size>", "smallest message, bytes with an optional K, M or G suffix (default 32M)",
     [](Options& o, std::string_view, std::string_view v) { o.min_bytes = parse_size(v); }},
    {'e', "maxbytes", "<size>", "largest message (default 32M)",
     [](Options& o, std::string_view, std::string_view v) { o.max_bytes = parse_size(v); }},
    {'i', "stepbytes", "<size>", "size increment when no -f is given (default 1M)",
     [](Options& o, std::string_view, std::string_view v) { o.step_bytes = parse_size(v); }},
    {'f', "stepfactor", "<factor>", "size multiplication factor (default 1: use -i)",
     [](Options& o, std::string_view f, std::string_view v) {
       o.step_factor = static_cast<size_t>(parseInt(f, v, 1, kMaxInt));
     }},
    {'n', "iters", "<count>", "timed iterations per size (default 20)",
     [](Options& o, std::string_view f, std::string_view v) { o.iters = parseInt(f, v, 1, kMaxInt); }},
    {'w', "warmup_iters", "<count>", "warmup iterations per size (default 5)",
     [](Options& o, std::string_view f, std::string_view v) { o.warmup_iters = parseInt(f, v, 0, kMaxInt); }},
    {'c', "check", "<0/1>", "check the results (default 1)",
     [](Options& o, std::string_view f, std::string_view v) { o.check = parseInt(f, v, 0, 1) == 1; }},
    {'o', "op", "<op>", "sum, prod, min, max, avg or all (default sum)",
     [](Options& o, std::string_view, std::string_view v) { o.ops = parse_ops(v); }},
    {'d', "datatype", "<type>",
     "int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, f8e4m3, f8e5m2 or all "
     "(default float)",
     [](Options& o, std::string_view, std::string_view v) { o.types = parse_types(v); }},
    {'r', "root", "<rank>", "root of broadcast and reduce (default 0)",
     [](Options& o, std::string_view f, std::string_view v) { o.root = parseInt(f, v, 0, kMaxInt); }},
    {'z', "blocking", "<0/1>",
     "1: blocking calls (NULL stream); 0: a trnccl stream, synchronised per batch (default 0)",
     [](Options& o, std::string_view f, std::string_view v) { o.blocking = parseInt(f, v, 0, 1) == 1; }},
    {'J', "json", "<file>", "also write every row and the run's metadata as JSON to <file>",
     [](Options& o, std::string_view f, std::string_view v) {
       if (v.empty()) throw UsageError(std::string(f) + " needs a file name");
       o.json_path = v;
     }},
    {'A', "algo", "<algorithm>", "set TRNCCL_ALGO for this run (e.g. ring)",
     [](Options& o, std::string_view f, std::string_view v) {
       if (v.empty()) throw UsageError(std::string(f) + " needs an algorithm name");
       o.algorithm = v;
     }},
    {'m', "mpi_peer", "<0/1>", "1: also time MPI's equivalent call per size (under mpirun only; default 0)",
     [](Options& o, std::string_view f, std::string_view v) { o.mpi_peer = parseInt(f, v, 0, 1) == 1; }},
    {'R', "local_register", "<0/1>",
     "1: register the send and receive buffers with the communicator (trncclCommRegister; default 0)",
     [](Options& o, std::string_view f, std::string_view v) { o.register_buffers = parseInt(f, v, 0, 1) == 1; }},
    {'h', "help", "", "print this help", [](Options& o, std::string_view, std::string_view) { o.help = true; }},
}};

}  // namespace

Options parse_args(const std::vector<std::string>& args) {
  Options options;
  CLI::App app;
  cli::prepare(app);
  for (const Flag& f : kFlags) {
    const std::string names = "-" + std::string(1, f.short_name) + ",--" + std::string(f.long_name);
    const std::string shown = "-" + std::string(1, f.short_name);  // errors name the short flag
    if (f.value_name.empty()) {
      app.add_flag_callback(names, [&options, &f, shown] { f.apply(options, shown, ""); });
    } else {
      cli::addValue(
          app, names, [&options, &f, shown](const std::string& value) { f.apply(options, shown, value); },
          std::string(f.value_name));
    }
  }
  std::vector<std::string> positional;
  app.add_option("collective", positional)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cli::parse(app, args, "unknown flag");
  if (options.help) return options;
  if (positional.empty()) throw UsageError("no collective given");
  if (positional.size() > 1) throw UsageError("unexpected argument '" + positional[1] + "'");
  options.collective = parse_collective(positional[0]);
  size_sweep(options.min_bytes, options.max_bytes, options.step_factor, options.step_bytes);  // throws if unusable
  return options;
}

void check_launch(const Options& options, int nranks, bool under_mpirun) {
  if (options.mpi_peer && !under_mpirun) throw UsageError("-m 1 (MPI peer) needs a launch by mpirun");
  if (under_mpirun && options.threads > 1) {
    throw UsageError("-t is for runs without mpirun; under mpirun each process is one rank");
  }
  if (has_root(options.collective) && options.root >= nranks) {
    throw UsageError("root " + std::to_string(options.root) + " is not a rank of " + std::to_string(nranks));
  }
}

std::string usage_text() {
  std::string text =
      "usage: trnccl-perf <collective> [flags]\n"
      "       mpirun -np <N> trnccl-perf <collective> [flags]\n"
      "collectives: all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv, gather, scatter,\n"
      "             alltoallv, allgatherv, reducescatterv, permute (the v-collectives with even blocks, permute\n"
      "             as a shift by one rank)\n"
      "flags:\n";
  for (const Flag& f : kFlags) {
    std::string left = "  -" + std::string(1, f.short_name) + ", --" + std::string(f.long_name);
    if (!f.value_name.empty()) left += " " + std::string(f.value_name);
    left.resize(std::max<size_t>(left.size() + 2, 32), ' ');
    text += left + std::string(f.help) + "\n";
  }
  return text;
}

}  // namespace trnccl::perf
