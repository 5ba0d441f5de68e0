#include "options.h"

#include <CLI/CLI.hpp>
#include <limits>

#include "cli/command_line.h"

namespace trnccl::ls {

Options parseOptions(const std::vector<std::string>& args, const std::string& defaultTopology) {
  Options o;
  o.topology = defaultTopology;
  CLI::App app;
  cli::prepare(app);
  app.add_flag("-h,--help", o.help);
  app.add_flag("--json", o.json);
  app.add_flag("-j,--json-output", o.neuronJson);
  cli::addValue(app, "--topo", [&o](const std::string& v) {
    if (v.empty()) throw UsageError("--topo needs a topology name or file");
    o.topology = v;
  });
  cli::addValue(app, "-n,--ranks",
                [&o](const std::string& v) { o.ranks = cli::parseInt("-n", v, 1, std::numeric_limits<int>::max()); });
  cli::addText(app, "--order", o.order);
  cli::parse(app, args, "unknown argument");
  if (o.json && o.neuronJson) throw UsageError("--json and --json-output: choose one");
  return o;
}

std::string usageText() {
  return "usage: trnccl-ls [--topo SPEC] [--ranks N] [--order ORDER] [--json | --json-output]\n"
         "Lists an emulated Trainium system: its chips and NeuronCores, the ranks\n"
         "placed on them, the NeuronLink topology, the EFA NICs and this host.\n"
         "\n"
         "  --topo SPEC     a shipped topology name or a .json file, optionally\n"
         "                  suffixed :N for N instances (default: $TRNCCL_TOPO,\n"
         "                  else trn1.32xlarge)\n"
         "  -n, --ranks N   ranks to place (default: every NeuronCore the order uses)\n"
         "  --order ORDER   core (default: consecutive ranks fill a chip's NeuronCores),\n"
         "                  chip (one rank per chip) or a comma list of NeuronCore indices\n"
         "  --json          print the same as JSON\n"
         "  -j, --json-output\n"
         "                  the devices of one instance as neuron-ls --json-output\n"
         "                  prints them (its field names; no processes)\n"
         "  -h, --help      print this help\n";
}

}  // namespace trnccl::ls
