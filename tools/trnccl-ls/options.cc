#include "options.h"

#include <charconv>
#include <string_view>

namespace trnccl::ls {

namespace {

int parseRanks(std::string_view flag, std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1) {
    throw UsageError("invalid value '" + std::string(text) + "' for " + std::string(flag) +
                     ": expected a positive integer");
  }
  return value;
}

}  // namespace

Options parseOptions(const std::vector<std::string>& args, const std::string& defaultTopology) {
  Options o;
  o.topology = defaultTopology;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::optional<std::string> value;
    if (const size_t eq = flag.find('='); flag.starts_with("--") && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
    }
    const bool takesValue = flag == "--topo" || flag == "--ranks" || flag == "-n" || flag == "--order";
    if (takesValue && !value) {
      if (i + 1 == args.size()) throw UsageError(flag + " needs a value");
      value = args[++i];
    }
    if (!takesValue && value) throw UsageError(flag + " takes no value");
    if (flag == "--topo") {
      if (value->empty()) throw UsageError("--topo needs a topology name or file");
      o.topology = *value;
    } else if (flag == "--ranks" || flag == "-n") {
      o.ranks = parseRanks(flag, *value);
    } else if (flag == "--order") {
      o.order = *value;
    } else if (flag == "--json") {
      o.json = true;
    } else if (flag == "--help" || flag == "-h") {
      o.help = true;
    } else {
      throw UsageError("unknown argument '" + args[i] + "'");
    }
  }
  return o;
}

std::string usageText() {
  return "usage: trnccl-ls [--topo SPEC] [--ranks N] [--order ORDER] [--json]\n"
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
         "  -h, --help      print this help\n";
}

}  // namespace trnccl::ls
