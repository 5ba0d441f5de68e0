// The model fitted to measurements of real hardware (--calibrate): each
// fitted figure is a hardware figure of one chip generation (the DMA
// engines' rate, the EFA NICs' efficiency) or a runtime figure of one Neuron
// release era (launch, per message, per EFA message), so a file fits only
// the figures of the machine and the software it ran on. Least squares on
// log time, each file weighted alike, by Nelder-Mead over the figures'
// logarithms from the shipped ones.
#pragma once

#include <cctype>
#include <limits>
#include <string>
#include <vector>

#include "measured_run.h"
#include "options.h"
#include "sweep.h"

namespace trnccl::simtool {

// The sweep that predicts `run`: its machine and era as its name and header
// say (an explicit --topo or --runtime wins in --check, `fileFirst` false),
// the command line for what they leave out, each size of the file once.
Options runOptions(const Options& options, const MeasuredRun& run, bool fileFirst);

// The run's sizes under `o` (runOptions()); throws what sweep() could not price.
std::vector<Row> predictRun(const Options& o, const MeasuredRun& run);

struct FittedFigure {
  std::string scope;  // a generation ("trainium") or an era ("2026")
  std::string knob;   // as --set takes it: dma.bandwidth, efa.efficiency, launch, dma.message, proxy
  double start = 0;   // the shipped value, in the knob's unit
  // What the hardware allows: a chip's DMA engines move no more than its HBM
  // does, a NIC gives no more than its line rate.
  double most = std::numeric_limits<double>::infinity();
  std::vector<size_t> runs;  // the runs it applies to
  bool hardware() const { return scope != "file" && !std::isdigit(static_cast<unsigned char>(scope[0])); }
};

// As Fit::fit's leftOutPoint: every point of the run left out.
inline constexpr int kWholeRun = -2;

class Fit {
 public:
  Fit(const Options& options, std::vector<MeasuredRun> runs);

  const std::vector<MeasuredRun>& runs() const { return runs_; }
  const std::vector<FittedFigure>& figures() const { return figures_; }
  std::vector<double> startingValues() const;
  // `values` within what the hardware allows (FittedFigure::most).
  std::vector<double> bounded(std::vector<double> values) const;

  // Per run (only those `runs` holds; all when empty), per size, the
  // predicted microseconds under `values` (one per figure).
  std::vector<std::vector<double>> predictions(const std::vector<double>& values,
                                               const std::vector<size_t>& runs = {}) const;

  // The figures `active` (every one when empty) fitted from `values`, the
  // others kept; point `leftOutPoint` of run `leftOutRun` is left out (none:
  // -1; kWholeRun: all of that run). `step`: the first simplex's step on each
  // figure's logarithm.
  std::vector<double> fit(std::vector<double> values, const std::vector<size_t>& active, int leftOutRun,
                          int leftOutPoint, int evaluations, double step = 0.5) const;

  // Each scope in turn (its figures on the runs that use them), `rounds`
  // times: the scopes share few runs, so this converges where one
  // Nelder-Mead over every figure would need thousands of predictions.
  std::vector<double> fitByScope(std::vector<double> values, const std::vector<std::string>& scopes, int leftOutRun,
                                 int leftOutPoint, int rounds, int evaluationsPerFigure, double step) const;

  // The scopes (generations and eras) in the order figures were found, and
  // those of run `run`.
  std::vector<std::string> scopes() const;
  std::vector<std::string> scopesOf(size_t run) const;

  // "trainium:2": the generation and instance count run `run` ran on.
  const std::string& machineOf(size_t run) const { return machines_.at(run); }

  // Run `run` unmeasured, as a study of a machine nobody measured meets it:
  // the values with every figure only it measured replaced by the same
  // figure of another scope (the newest: another generation's, the default
  // era's), and the figures it shares refitted without it. `standIns` says
  // which stood in; empty values, and `standIns` naming it, when a figure
  // only it measured has none (EFA's, measured by one file).
  std::vector<double> withoutRun(const std::vector<double>& values, size_t run, std::string& standIns) const;

  // The figures run `run` uses, and the runs that share any of them.
  std::vector<size_t> figuresOf(size_t run) const;
  std::vector<size_t> runsSharing(const std::vector<size_t>& figures) const;

 private:
  Options options_;
  std::vector<MeasuredRun> runs_;
  std::vector<Options> sweeps_;  // per run, before the figures are set
  std::vector<FittedFigure> figures_;
  std::vector<std::string> machines_;  // per run
};

}  // namespace trnccl::simtool
