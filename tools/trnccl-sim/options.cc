#include "options.h"

#include <CLI/CLI.hpp>
#include <functional>
#include <limits>

#include "cli/command_line.h"
#include "nccl_tests/datatypes.h"
#include "nccl_tests/sizes.h"
#include "topology/runtime_era.h"

namespace trnccl::simtool {
namespace {

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> parts;
  size_t from = 0;
  while (true) {
    const size_t at = text.find(by, from);
    parts.push_back(text.substr(from, at - from));
    if (at == std::string::npos) return parts;
    from = at + 1;
  }
}

constexpr int kMaxInt = std::numeric_limits<int>::max();

// "allreduce" or nccl-tests' "all_reduce".
perf::Collective parseCollective(const std::string& name) {
  for (const CollectiveFacts& c : kCollectiveFacts)
    if (name == c.name || name == c.benchName) {
      if (c.collective == Collective::SendRecv)
        throw UsageError("--coll " + name + ": the simulator models collectives only");
      return c.collective;
    }
  return perf::parse_collective(name);  // names the collectives it knows
}

// "8:4G:x2" (nccl-tests' -b -e -f), "1K:64K:+1K" (-i), or one size.
std::vector<size_t> parseSizes(const std::string& text) {
  const std::vector<std::string> parts = split(text, ':');
  if (parts.size() == 1) return {perf::parse_size(parts[0])};
  if (parts.size() != 3 || parts[2].size() < 2 || (parts[2][0] != 'x' && parts[2][0] != '+'))
    throw UsageError("--sizes '" + text + "': expected MIN:MAX:xFACTOR, MIN:MAX:+STEP or one size");
  const size_t step = perf::parse_size(parts[2].substr(1));
  return parts[2][0] == 'x' ? perf::size_sweep(perf::parse_size(parts[0]), perf::parse_size(parts[1]), step, 0)
                            : perf::size_sweep(perf::parse_size(parts[0]), perf::parse_size(parts[1]), 1, step);
}

// A flag that may be given again and again, each value read in order.
void repeatable(CLI::App& app, const std::string& name, std::function<void(const std::string&)> each) {
  app.add_option_function<std::vector<std::string>>(name,
                                                    [each](const std::vector<std::string>& values) {
                                                      for (const std::string& v : values) each(v);
                                                    })
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false)
      ->type_name("");
}

}  // namespace

algo::Collective simulatedCollective(perf::Collective c) {
  if (c == Collective::SendRecv) throw UsageError("the simulator models collectives only, not sendrecv");
  return c;
}

std::string usageText() {
  return "usage: trnccl-sim [--topo SPEC[,SPEC...]] [--coll allreduce] [--algo ring,torus2d,auto]\n"
         "                  [--dtype float] [--op sum] [--sizes 8:4G:x2] [--ranks N] [--rank-order core]\n"
         "                  [--engine auto|event|analytical|folded] [--set KNOB=VALUE]... [--compare KNOB[,KNOB]]...\n"
         "                  [--straggler RANK:+TIME[,...]]... [--fail-link CHIP-CHIP]...\n"
         "                  [--format table|csv|json] [--out FILE] [--plot FILE.png|FILE.svg] [--links FILE.csv]\n"
         "       trnccl-sim --validate PERF.json [--engine ...]   (trnccl-perf -J, with TRNCCL_EMULATE_LINKS=1)\n"
         "       trnccl-sim --workload compute_ms=100,grad=1G,bucket=25M,overlap=1,dtype=bf16 [--topo T]\n"
         "                  [--instances 1,4,16,64]\n"
         "       trnccl-sim --check MEASURED.tsv [--topo T[:N]] [--coll C] [--ranks N] [--dtype T] [--algo neuron]\n"
         "       trnccl-sim --calibrate DIR [--topo T] [--algo neuron] [--engine ...]\n"
         "                  (real hardware's nccom-test runs, as in shared/calibration; a file's name such as\n"
         "                  allreduce_64rank_2inst_fp32.tsv says what was measured, the flags what it does not)\n"
         "       trnccl-sim --explain SIZE [--topo T] [--algo A] [--coll C] [--runtime ERA]\n"
         "                  (one size's time split into launch, per-step latency, bandwidth and reduction)\n"
         "       trnccl-sim --chakra TRACE.et [--topo T[:N]] [--algo A] [--dtype T] [--engine ...]\n"
         "                  (a Chakra execution trace of one rank's step, as ASTRA-sim and SimAI replay them)\n"
         "       trnccl-sim --list-algorithms   (each algorithm and where it runs: any-ranks or instances)\n"
         "knobs: link.bandwidth=2x|GBps, link.latency=0.5x|us, efa.gbps=N, efa.latency=us, nodes=N,\n"
         "       launch=us, dma.bandwidth=GBps, dma.message=us, reduce.bandwidth=GBps (the collective engine),\n"
         "       proxy=us (per EFA\n"
         "       message), efa.efficiency=F (of the NICs' line rate), reduce.slices=N (a received message\n"
         "       is reduced in N slices, each overlapping the next one's transfer)\n"
         "--runtime ERA         the Neuron runtime era whose launch, per-message and proxy costs apply:\n"
         "                      2023, 2025 or 2026 (default: the newest; --check: the file's)\n"
         "--straggler 5:+50us   rank 5 enters the collective 50 us late (TIME in ns, us, ms or s)\n"
         "--fail-link 3-7       the NeuronLink between chips 3 and 7 of every instance is down: traffic\n"
         "                      routes around it\n"
         "--links FILE.csv      per link of every row: bytes carried, busy time and utilisation";
}

Options parseOptions(const std::vector<std::string>& args) {
  Options o;
  std::vector<std::string> topologies{"trn1.32xlarge"};
  std::vector<std::string> sets;
  std::vector<sim::ChipPair> failedLinks;
  std::vector<std::vector<std::string>> compares;
  std::string sizes = "8:4G:x2";
  CLI::App app;
  cli::prepare(app);
  app.add_flag("-h,--help", o.help);
  app.add_flag("--list-algorithms", o.listAlgorithms);
  cli::addValue(app, "--topo", [&](const std::string& v) {
    topologies = split(v, ',');
    o.topologyGiven = true;
  });
  cli::addValue(app, "--coll", [&](const std::string& v) {
    o.collective = parseCollective(v);
    o.collectiveGiven = true;
  });
  cli::addValue(app, "--algo", [&](const std::string& v) { o.algorithms = split(v, ','); });
  cli::addValue(app, "--dtype", [&](const std::string& v) {
    o.type = perf::parse_types(v).at(0);
    o.typeGiven = true;
  });
  cli::addValue(app, "--op", [&](const std::string& v) { o.op = perf::parse_ops(v).at(0); });
  cli::addText(app, "--sizes", sizes);
  cli::addInt(app, "--ranks", o.ranks, 0, kMaxInt);
  cli::addText(app, "--rank-order", o.rankOrder);
  cli::addValue(app, "--engine", [&](const std::string& v) { o.engine = sim::parseEngine(v); });
  repeatable(app, "--set", [&](const std::string& v) { sets.push_back(v); });
  repeatable(app, "--straggler", [&](const std::string& v) {
    const std::vector<sim::Straggler> late = sim::parseStragglers(v);
    o.stragglers.insert(o.stragglers.end(), late.begin(), late.end());
  });
  repeatable(app, "--fail-link", [&](const std::string& v) { failedLinks.push_back(sim::parseFailedLink(v)); });
  repeatable(app, "--compare", [&](const std::string& v) { compares.push_back(split(v, ',')); });
  cli::addText(app, "--format", o.format);
  cli::addText(app, "--out", o.out);
  cli::addText(app, "--plot", o.plot);
  cli::addText(app, "--links", o.links);
  cli::addText(app, "--validate", o.validate);
  cli::addText(app, "--workload", o.workload);
  cli::addText(app, "--check", o.check);
  cli::addText(app, "--calibrate", o.calibrate);
  cli::addText(app, "--chakra", o.chakra);
  cli::addValue(app, "--runtime", [&](const std::string& v) {
    topo::loadRuntimeEra(v);  // an unknown era is refused here, naming the known ones
    o.runtime = v;
  });
  cli::addValue(app, "--explain", [&](const std::string& v) { o.explain = perf::parse_size(v); });
  cli::addValue(app, "--instances", [&](const std::string& v) {
    o.instances.clear();
    for (const std::string& n : split(v, ',')) o.instances.push_back(cli::parseInt("--instances", n, 0, kMaxInt));
  });
  cli::parse(app, args, "unknown argument");
  if (o.format != "table" && o.format != "csv" && o.format != "json")
    throw UsageError("--format '" + o.format + "': expected table, csv or json");
  if (!o.plot.empty() && !o.plot.ends_with(".png") && !o.plot.ends_with(".svg"))
    throw UsageError("--plot '" + o.plot + "': expected a .png or .svg file");
  const bool whatIf = !o.stragglers.empty() || !failedLinks.empty() || !o.links.empty();
  if (whatIf && (!o.validate.empty() || !o.workload.empty() || !o.check.empty() || !o.calibrate.empty()))
    throw UsageError(
        "--straggler, --fail-link and --links apply to sweeps, not to --validate, --workload, --check or --calibrate");
  if (!o.chakra.empty() && (topologies.size() != 1 || !compares.empty() || o.algorithms.size() != 1))
    throw UsageError("--chakra takes one --topo, one --algo and no --compare");
  if ((!o.check.empty() || !o.calibrate.empty()) && (topologies.size() != 1 || !compares.empty()))
    throw UsageError("--check and --calibrate take one --topo and no --compare");
  if ((!o.check.empty() || !o.calibrate.empty()) && o.algorithms.size() != 1)
    throw UsageError("--check and --calibrate take one --algo (neuron: what the measured runtime played)");
  if (!o.calibrate.empty() && (o.collectiveGiven || o.typeGiven || o.ranks != 0))
    throw UsageError(
        "--calibrate: each file's name says its collective, type and ranks, not --coll, --dtype or --ranks");
  o.sizes = parseSizes(sizes);
  // Each topology as given, then once per --compare with its knobs on top.
  for (const std::string& topology : topologies) {
    Variant base{topology, topology, {}};
    base.knobs.runtime = o.runtime;
    for (const std::string& s : sets) sim::setKnob(base.knobs, s);
    base.knobs.failedLinks = failedLinks;
    o.variants.push_back(base);
    for (const auto& knobs : compares) {
      Variant v = base;
      for (const std::string& k : knobs) {
        sim::setKnob(v.knobs, k);
        v.label += " " + k;
      }
      o.variants.push_back(v);
    }
  }
  return o;
}

}  // namespace trnccl::simtool
