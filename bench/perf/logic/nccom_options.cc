#include "logic/nccom_options.h"

#include <CLI/CLI.hpp>
#include <array>
#include <limits>
#include <utility>

#include "cli/command_line.h"
#include "logic/usage_error.h"
#include "nccl_tests/datatypes.h"
#include "nccl_tests/sizes.h"

namespace trnccl::perf {

namespace {

using cli::kMaxInt;

// nccom-test's operations, by nccl-tests' names or nccom-test's short ones
// (both in kCollectiveFacts).
constexpr Collective kOperations[] = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
                                      Collective::SendRecv, Collective::AllToAll};

Collective parse_operation(std::string_view name) {
  std::string known;
  for (const Collective collective : kOperations) {
    const CollectiveFacts& facts = collectiveFacts(collective);
    if (name == facts.benchName || (facts.nccomName != nullptr && name == facts.nccomName)) return collective;
    known += (known.empty() ? "" : ", ") + std::string(facts.benchName);
    if (facts.nccomName != nullptr) known += " (" + std::string(facts.nccomName) + ")";
  }
  throw UsageError("unknown operation '" + std::string(name) + "': use " + known);
}

}  // namespace

size_t parse_nccom_size(std::string_view text) {
  // nccom-test writes the unit as kb, mb, gb; nccl-tests' reader takes K, M, G.
  if (text.size() >= 2 && (text.back() == 'b' || text.back() == 'B')) {
    const char unit = text[text.size() - 2];
    if (std::string_view("kKmMgG").find(unit) != std::string_view::npos) text.remove_suffix(1);
  }
  return parse_size(text);
}

Options parse_nccom_args(const std::vector<std::string>& args) {
  Options o;
  o.style = TableStyle::nccom;
  o.per_call_median = true;
  o.in_place = false;
  o.check = false;          // nccom-test checks results only when asked (-c)
  o.types = {trncclUint8};  // and moves bytes unless told a type
  o.threads = 0;            // -r is required
  CLI::App app;
  cli::prepare(app);
  app.add_flag("-h,--help", o.help);
  cli::addValue(app, "-r,--nworkers", [&](const std::string& v) { o.threads = cli::parseInt("-r", v, 1, 1024); });
  cli::addInt(app, "-N,--nnodes", o.instances, 1, kMaxInt);
  cli::addValue(app, "-b,--minbytes", [&](const std::string& v) { o.min_bytes = parse_nccom_size(v); });
  cli::addValue(app, "-e,--maxbytes", [&](const std::string& v) { o.max_bytes = parse_nccom_size(v); });
  cli::addValue(app, "-i,--stepbytes", [&](const std::string& v) { o.step_bytes = parse_nccom_size(v); });
  cli::addValue(app, "-f,--stepfactor",
                [&](const std::string& v) { o.step_factor = static_cast<size_t>(cli::parseInt("-f", v, 1, kMaxInt)); });
  cli::addInt(app, "-n,--iters", o.iters, 1, kMaxInt);
  cli::addInt(app, "-w,--warmup_iters", o.warmup_iters, 0, kMaxInt);
  cli::addValue(app, "-d,--datatype", [&](const std::string& v) { o.types = parse_types(v); });
  app.add_flag("-c,--check", o.check);
  app.add_flag("--show-algorithm", o.show_algorithm);
  cli::addText(app, "--report-to-json-file", o.json_path);
  cli::addValue(app, "--bandwidth-unit", [&](const std::string& v) {
    if (v != "gb" && v != "gib")
      throw UsageError("--bandwidth-unit '" + v + "': expected gb (decimal, 1e9 bytes) or gib");
    o.gib_bandwidth = v == "gib";
  });
  std::vector<std::string> positional;
  app.add_option("operation", positional)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cli::parse(app, args, "unknown flag");
  if (o.help) return o;
  if (positional.empty()) throw UsageError("no operation given");
  if (positional.size() > 1) throw UsageError("unexpected argument '" + positional[1] + "'");
  if (o.threads == 0) throw UsageError("-r <ranks> is required");
  if (o.threads % o.instances != 0)
    throw UsageError("-N " + std::to_string(o.instances) + " instances take as many ranks each, which -r " +
                     std::to_string(o.threads) + " does not divide into");
  o.collective = parse_operation(positional[0]);
  size_sweep(o.min_bytes, o.max_bytes, o.step_factor, o.step_bytes);  // throws if unusable
  return o;
}

std::string nccom_usage_text() {
  return "usage: trnccl-nccom-test -r <ranks> [flags] <operation>\n"
         "       mpirun -np <ranks> trnccl-nccom-test -r <ranks> [flags] <operation>\n"
         "Neuron's nccom-test on trnccl: its flags, sizes and table. The ranks run as threads of this\n"
         "process, or one per process under mpirun.\n"
         "operations: all_reduce (allr), all_gather (allg), reduce_scatter (redsct), sendrecv, alltoall\n"
         "flags:\n"
         "  -r, --nworkers <ranks>        ranks (required)\n"
         "  -N, --nnodes <instances>      emulated instances of $TRNCCL_TOPO (default trn1.32xlarge),\n"
         "                                -r / N ranks on each (default 1)\n"
         "  -b, --minbytes <size>         smallest message: 512, 1kb, 64mb, 1gb (default 32mb)\n"
         "  -e, --maxbytes <size>         largest message (default 32mb)\n"
         "  -i, --stepbytes <size>        size increment when no -f is given (default 1mb)\n"
         "  -f, --stepfactor <factor>     size multiplication factor\n"
         "  -n, --iters <count>           timed calls per size (default 20); the table shows their median\n"
         "  -w, --warmup_iters <count>    warm-up calls per size (default 5)\n"
         "  -d, --datatype <type>         uint8 (default), int8, int32, uint32, fp16, bf16, fp32, fp8e4m3, ...\n"
         "  -c, --check                   check every result\n"
         "  --show-algorithm              add the algorithm trnccl's tuner ran\n"
         "  --report-to-json-file <file>  also write the rows and the run as JSON\n"
         "  --bandwidth-unit gb|gib       algbw and busbw in decimal GB/s (default, as nccom-test since\n"
         "                                about mid-2025) or in GiB/s (as it printed before)\n"
         "  -h, --help                    print this help\n";
}

}  // namespace trnccl::perf
