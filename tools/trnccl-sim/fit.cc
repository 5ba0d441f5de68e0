#include "fit.h"

#include <nlopt.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <utility>

#include "algorithms/algorithm.h"
#include "algorithms/network_model.h"
#include "base/error.h"
#include "nccl_tests/datatypes.h"
#include "sim/knobs.h"
#include "topology/runtime_era.h"
#include "topology/topology.h"

namespace trnccl::simtool {
namespace {

// "all_reduce float, 64 ranks, 2 instances of trn1.32xlarge"
std::string sweepText(const Options& o) {
  const Variant& v = o.variants.at(0);
  return std::string(perf::collective_name(o.collective)) + " " + std::string(perf::type_name(o.type)) + ", " +
         (o.ranks > 0 ? std::to_string(o.ranks) : std::string("all")) + " ranks, " +
         (v.knobs.nodes ? std::to_string(*v.knobs.nodes) + " instances of " : std::string()) + v.label;
}

void setFigure(sim::Knobs& knobs, const std::string& knob, double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%s=%.17g", knob.c_str(), value);
  sim::setKnob(knobs, text);
}

// The figure's shipped value on `o`'s machine, in its knob's unit.
double shipped(const Options& o, const std::string& knob) {
  topo::Topology t = topo::loadTopology(o.variants.at(0).topology);
  sim::applyKnobs(o.variants.at(0).knobs, t);
  if (knob == "dma.bandwidth") return t.engine.dmaBytesPerSec / 1e9;
  if (knob == "efa.efficiency") return t.efaEfficiency;
  if (knob == "launch") return t.engine.launchSec * 1e6;
  if (knob == "dma.message") return t.engine.dmaMessageSec * 1e6;
  if (knob == "reduce.bandwidth") return algo::reductionBytesPerSec(t) / 1e9;
  return t.engine.proxySec * 1e6;  // proxy
}

// Nelder-Mead (NLopt's): from x0, a first simplex `step` away along each
// axis (0.5 in log space: a factor of 1.65 on each figure), at most
// `evaluations` costs; the best point found.
template <class Cost>
std::vector<double> nelderMead(const Cost& cost, const std::vector<double>& x0, int evaluations, double step) {
  std::unique_ptr<nlopt_opt_s, void (*)(nlopt_opt)> opt(
      nlopt_create(NLOPT_LN_NELDERMEAD, static_cast<unsigned>(x0.size())), nlopt_destroy);
  if (!opt) throwError(trncclSystemError, "NLopt: cannot create a Nelder-Mead optimiser");
  const auto objective = [](unsigned n, const double* x, double*, void* data) {
    return (*static_cast<const Cost*>(data))(std::vector<double>(x, x + n));
  };
  nlopt_set_min_objective(opt.get(), objective, const_cast<Cost*>(&cost));
  nlopt_set_initial_step1(opt.get(), step);
  nlopt_set_maxeval(opt.get(), evaluations);
  nlopt_set_ftol_abs(opt.get(), 1e-9);
  std::vector<double> x = x0;
  double best = 0;
  // Running out of evaluations is its normal end; a failure leaves x at the best point seen.
  if (nlopt_optimize(opt.get(), x.data(), &best) < 0 && !std::isfinite(best))
    throwError(trncclSystemError, "NLopt: the fit failed");
  return x;
}

}  // namespace

Options runOptions(const Options& options, const MeasuredRun& run, bool fileFirst) {
  Options o = options;
  o.variants = {options.variants.at(0)};
  Variant& v = o.variants[0];
  if (!run.topology.empty() && (fileFirst || !options.topologyGiven)) v.topology = v.label = run.topology;
  if (run.instances > 0) v.knobs.nodes = run.instances;
  if (run.onePerInstance) o.rankOrder = "spread";
  if (fileFirst || options.runtime.empty()) v.knobs.runtime = run.era;
  o.collective = run.collective.value_or(options.collective);
  o.type = run.type.value_or(options.type);
  o.ranks = run.ranks > 0 ? run.ranks : options.ranks;
  o.algorithms = {options.algorithms.at(0)};
  o.stragglers.clear();
  o.sizes.clear();
  for (const Measurement& m : run.points) o.sizes.push_back(m.bytes);
  return o;
}

std::vector<Row> predictRun(const Options& o, const MeasuredRun& run) {
  std::vector<std::string> skipped;
  std::vector<Row> rows;
  try {
    rows = sweep(o, skipped);
  } catch (const Error& e) {  // e.g. more ranks than the machine has: the file's, not a --ranks given
    throwError(e.code(), run.file + " (" + sweepText(o) + "): " + e.what());
  }
  if (!skipped.empty()) throwError(trncclInvalidArgument, run.file + ": cannot price " + skipped.front());
  return rows;
}

Fit::Fit(const Options& options, std::vector<MeasuredRun> runs) : options_(options), runs_(std::move(runs)) {
  const auto figure = [&](const std::string& scope, const std::string& knob, size_t run) {
    auto it = std::find_if(figures_.begin(), figures_.end(),
                           [&](const FittedFigure& f) { return f.scope == scope && f.knob == knob; });
    if (it == figures_.end()) {
      const topo::Topology t = topo::loadTopology(sweeps_[run].variants[0].topology);
      const double most = knob == "dma.bandwidth"    ? t.device.hbmBytesPerSec / 1e9
                          : knob == "efa.efficiency" ? 1
                                                     : std::numeric_limits<double>::infinity();
      figures_.push_back({scope, knob, std::max(shipped(sweeps_[run], knob), 1e-3), most, {}});
      it = figures_.end() - 1;
    }
    it->runs.push_back(run);
  };
  for (size_t r = 0; r < runs_.size(); ++r) {
    sweeps_.push_back(runOptions(options_, runs_[r], true));
    const Variant& v = sweeps_[r].variants[0];
    topo::Topology t = topo::loadTopology(v.topology);
    sim::applyKnobs(v.knobs, t);
    // A topology file with runtime figures of its own has no era: "file".
    const std::string generation = t.device.generation, era = t.engine.runtime.empty() ? "file" : t.engine.runtime;
    runs_[r].era = era;  // the newest where the file says none
    machines_.push_back(generation + ":" + std::to_string(t.nodes));
    figure(generation, "dma.bandwidth", r);
    if (algo::reduces(simulatedCollective(sweeps_[r].collective))) figure(generation, "reduce.bandwidth", r);
    figure(era, "launch", r);
    figure(era, "dma.message", r);
    if (t.nodes > 1) {
      figure(generation, "efa.efficiency", r);
      figure(era, "proxy", r);
    }
  }
}

std::vector<double> Fit::startingValues() const {
  std::vector<double> values;
  for (const FittedFigure& f : figures_) values.push_back(f.start);
  return values;
}

std::vector<double> Fit::fitByScope(std::vector<double> values, const std::vector<std::string>& scopes, int leftOutRun,
                                    int leftOutPoint, int rounds, int evaluationsPerFigure, double step) const {
  for (int round = 0; round < rounds; ++round)
    for (const std::string& scope : scopes) {
      std::vector<size_t> figures;
      for (size_t f = 0; f < figures_.size(); ++f)
        if (figures_[f].scope == scope) figures.push_back(f);
      values = fit(values, figures, leftOutRun, leftOutPoint,
                   evaluationsPerFigure * static_cast<int>(figures.size()) + 1, step);
    }
  return values;
}

std::vector<std::string> Fit::scopes() const {
  std::vector<std::string> scopes;
  for (const FittedFigure& f : figures_)
    if (std::find(scopes.begin(), scopes.end(), f.scope) == scopes.end()) scopes.push_back(f.scope);
  return scopes;
}

std::vector<std::string> Fit::scopesOf(size_t run) const {
  std::vector<std::string> scopes;
  for (size_t f : figuresOf(run))
    if (std::find(scopes.begin(), scopes.end(), figures_[f].scope) == scopes.end()) scopes.push_back(figures_[f].scope);
  return scopes;
}

std::vector<double> Fit::bounded(std::vector<double> values) const {
  for (size_t f = 0; f < figures_.size(); ++f) values[f] = std::min(values[f], figures_[f].most);
  return values;
}

std::vector<double> Fit::withoutRun(const std::vector<double>& values, size_t run, std::string& standIns) const {
  std::vector<double> start = values;
  std::vector<size_t> shared;
  for (size_t f : figuresOf(run)) {
    if (figures_[f].runs.size() > 1) {
      shared.push_back(f);
      continue;
    }
    const FittedFigure* standIn = nullptr;
    for (const FittedFigure& other : figures_)
      if (other.knob == figures_[f].knob && other.scope != figures_[f].scope &&
          other.hardware() == figures_[f].hardware() && (standIn == nullptr || other.scope > standIn->scope))
        standIn = &other;
    if (standIn == nullptr) {
      standIns = "no stand-in for " + figures_[f].scope + "'s " + figures_[f].knob;
      return {};
    }
    start[f] = std::min(values[static_cast<size_t>(standIn - figures_.data())], figures_[f].most);
    standIns += (standIns.empty() ? "" : ", ") + figures_[f].knob + " " + standIn->scope + "'s";
  }
  if (shared.empty()) return start;
  return fit(start, shared, static_cast<int>(run), kWholeRun, 15 * static_cast<int>(shared.size()) + 1, 0.2);
}

std::vector<size_t> Fit::figuresOf(size_t run) const {
  std::vector<size_t> used;
  for (size_t f = 0; f < figures_.size(); ++f)
    if (std::find(figures_[f].runs.begin(), figures_[f].runs.end(), run) != figures_[f].runs.end()) used.push_back(f);
  return used;
}

std::vector<size_t> Fit::runsSharing(const std::vector<size_t>& figures) const {
  std::vector<size_t> runs;
  for (size_t f : figures) runs.insert(runs.end(), figures_[f].runs.begin(), figures_[f].runs.end());
  std::sort(runs.begin(), runs.end());
  runs.erase(std::unique(runs.begin(), runs.end()), runs.end());
  return runs;
}

std::vector<std::vector<double>> Fit::predictions(const std::vector<double>& values,
                                                  const std::vector<size_t>& runs) const {
  std::vector<std::vector<double>> us(runs_.size());
  for (size_t r = 0; r < runs_.size(); ++r) {
    if (!runs.empty() && std::find(runs.begin(), runs.end(), r) == runs.end()) continue;
    Options o = sweeps_[r];
    for (size_t f : figuresOf(r)) setFigure(o.variants[0].knobs, figures_[f].knob, values[f]);
    for (const Row& row : predictRun(o, runs_[r])) us[r].push_back(row.prediction.seconds * 1e6);
  }
  return us;
}

std::vector<double> Fit::fit(std::vector<double> values, const std::vector<size_t>& active, int leftOutRun,
                             int leftOutPoint, int evaluations, double step) const {
  std::vector<size_t> varied = active;
  if (varied.empty())
    for (size_t f = 0; f < figures_.size(); ++f) varied.push_back(f);
  const std::vector<size_t> runs = runsSharing(varied);
  const auto cost = [&](const std::vector<double>& x) {
    std::vector<double> v = values;
    for (size_t i = 0; i < varied.size(); ++i) v[varied[i]] = std::min(std::exp(x[i]), figures_[varied[i]].most);
    const std::vector<std::vector<double>> us = predictions(v, runs);
    double sum = 0;
    for (size_t r : runs) {
      const auto& points = runs_[r].points;
      const double weight = 1.0 / static_cast<double>(points.size());  // each file alike
      for (size_t p = 0; p < points.size(); ++p)
        if (!(static_cast<int>(r) == leftOutRun && (leftOutPoint == kWholeRun || static_cast<int>(p) == leftOutPoint)))
          sum += weight * std::pow(std::log(us[r][p] / points[p].us), 2);
    }
    return sum;
  };
  std::vector<double> x0;
  for (size_t f : varied) x0.push_back(std::log(values[f]));
  const std::vector<double> best = nelderMead(cost, x0, evaluations, step);
  for (size_t i = 0; i < varied.size(); ++i) values[varied[i]] = std::exp(best[i]);
  return bounded(values);
}

}  // namespace trnccl::simtool
