// trnccl-sim's command line.
#pragma once

#include <string>
#include <vector>

#include "cli/usage_error.h"
#include "nccl_tests/collective.h"
#include "sim/knobs.h"
#include "sim/simulation.h"
#include "sim/stragglers.h"

namespace trnccl::simtool {

using cli::UsageError;

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
  perf::Collective collective = perf::Collective::AllReduce;
  std::vector<std::string> algorithms{"auto"};
  trncclDataType_t type = trncclFloat32;
  trncclRedOp_t op = trncclSum;
  std::vector<size_t> sizes;
  sim::Engine engine = sim::Engine::Auto;
  std::vector<sim::Straggler> stragglers;    // --straggler, for every row
  std::string format = "table";              // table, csv, json
  std::string out;                           // empty: stdout
  std::string plot;                          // .png or .svg
  std::string links;                         // --links: a CSV of every link's bytes per row
  std::string validate;                      // a trnccl-perf -J file
  std::string workload;                      // --workload fields
  std::string check;                         // --check: a file of measurements (measured_run.h)
  std::string calibrate;                     // --calibrate: a directory of them
  std::string chakra;                        // --chakra: a Chakra execution trace to replay
  std::string runtime;                       // --runtime ERA (empty: the newest, or --check's file's)
  size_t explain = 0;                        // --explain SIZE: one size's time split into its parts (0: none)
  bool collectiveGiven = false;              // --coll was given
  bool topologyGiven = false;                // --topo was given
  bool typeGiven = false;                    // --dtype was given
  std::vector<int> instances{1, 4, 16, 64};  // --instances, for --workload
  bool help = false;
  bool listAlgorithms = false;  // print the registry's algorithms and stop
};

// Throws UsageError for a bad command line; a bad knob, --straggler or
// --fail-link is Error(InvalidArgument).
Options parseOptions(const std::vector<std::string>& args);
std::string usageText();

// trnccl-perf's collective as the algorithms name it; throws UsageError for
// sendrecv, which is no collective.
algo::Collective simulatedCollective(perf::Collective c);

}  // namespace trnccl::simtool
