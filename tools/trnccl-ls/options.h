// trnccl-ls's command line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/usage_error.h"

namespace trnccl::ls {

// A bad command line: main prints it with a hint and exits with status 2.
using cli::UsageError;

struct Options {
  std::string topology;      // a spec for topo::loadTopology
  std::optional<int> ranks;  // unset: as many as the order places
  std::string order;         // as topo::mapRanks takes it
  bool json = false;
  bool neuronJson = false;  // --json-output: neuron-ls's JSON
  bool help = false;
};

// `defaultTopology` is what --topo defaults to ($TRNCCL_TOPO or a shipped name).
Options parseOptions(const std::vector<std::string>& args, const std::string& defaultTopology);
std::string usageText();

}  // namespace trnccl::ls
