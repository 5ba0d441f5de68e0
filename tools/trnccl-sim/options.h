// trnccl-sim's command line.
#pragma once

#include <string>
#include <vector>

#include "logic/collective.h"
#include "logic/usage_error.h"
#include "sim/knobs.h"
#include "sim/simulation.h"

namespace trnccl::simtool {

using perf::UsageError;

// One machine of the run: a topology with knobs; --compare gives several.
struct Variant {
  std::string label;  // "trn1.32xlarge", "trn1.32xlarge link.bandwidth=2x"
  std::string topology;
  sim::Knobs knobs;
};

struct Options {
  std::vector<Variant> variants;
  int ranks = 0;  // 0: every NeuronCore
  std::string rankOrder = "core";
  perf::Collective collective = perf::Collective::all_reduce;
  std::vector<std::string> algorithms{"auto"};
  trncclDataType_t type = trncclFloat32;
  trncclRedOp_t op = trncclSum;
  std::vector<size_t> sizes;
  sim::Engine engine = sim::Engine::Auto;
  std::string format = "table";  // table, csv, json
  std::string out;               // empty: stdout
  std::string plot;              // .png or .svg
  bool help = false;
};

// Throws UsageError for a bad command line; a bad knob is Error(InvalidArgument).
Options parseOptions(const std::vector<std::string>& args);
std::string usageText();

}  // namespace trnccl::simtool
