#include "calibration.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "fit.h"
#include "measured_run.h"
#include "nccl_tests/datatypes.h"
#include "nccl_tests/text_format.h"
#include "sweep.h"

namespace trnccl::simtool {
namespace {

double errorOf(double predictedUs, double measuredUs) { return (predictedUs - measuredUs) / measuredUs; }

double medianAbs(std::vector<double> errors) {
  for (double& e : errors) e = std::fabs(e);
  std::sort(errors.begin(), errors.end());
  const size_t n = errors.size();
  return n == 0 ? 0 : n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
}

// The q-quantile of |errors| (nearest rank).
double quantileAbs(std::vector<double> errors, double q) {
  for (double& e : errors) e = std::fabs(e);
  std::sort(errors.begin(), errors.end());
  if (errors.empty()) return 0;
  return errors[std::min(errors.size() - 1, static_cast<size_t>(std::ceil(q * errors.size())) - 1)];
}

const char* unitName(BusbwUnit u) {
  return u == BusbwUnit::GiB ? "GiB/s" : u == BusbwUnit::GB ? "decimal GB/s" : "not said";
}

// A file's path below `dir` ("trn1/allreduce_2rank_fp32.tsv").
std::string shortName(const std::string& file, const std::string& dir) {
  return std::filesystem::path(file).lexically_relative(dir).string();
}

// Per figure, the files it was fitted to.
std::string filesOf(const Fit& fit, const FittedFigure& f, const std::string& dir) {
  std::string names;
  for (size_t r : f.runs) names += (names.empty() ? "" : ", ") + shortName(fit.runs()[r].file, dir);
  return names;
}

// A figure's name in the files and its factor to SI units.
struct FileKey {
  const char* name;
  double perUnit;
};
FileKey fileKeyOf(const std::string& knob) {
  if (knob == "dma.bandwidth") return {"dmaBytesPerSec", 1e9};
  if (knob == "efa.efficiency") return {"efaEfficiency", 1};
  if (knob == "launch") return {"launchSec", 1e-6};
  if (knob == "dma.message") return {"stepSec", 1e-6};
  if (knob == "reduce.bandwidth") return {"reduceBytesPerSec", 1e9};
  return {"proxySec", 1e-6};
}

const char* unitOf(const std::string& knob) {
  return knob == "dma.bandwidth" || knob == "reduce.bandwidth" ? "GB/s"
         : knob == "efa.efficiency"                            ? "of line rate"
                                                               : "us";
}

// The row of --calibrate's "unmeasured" table for run `r` (Fit::withoutRun).
std::string unmeasuredRow(const Fit& fit, const std::vector<double>& fitted, size_t r, const std::string& dir) {
  const MeasuredRun& run = fit.runs()[r];
  std::string standIns;
  const std::vector<double> without = fit.withoutRun(fitted, r, standIns);
  if (without.empty())
    return perf::format_text("  %-34s %-5s %8s  (%s)\n", shortName(run.file, dir).c_str(), run.era.c_str(), "-",
                             standIns.c_str());
  const std::vector<double> us = fit.predictions(without, {r})[r];
  std::vector<double> errors;
  for (size_t p = 0; p < run.points.size(); ++p) errors.push_back(errorOf(us[p], run.points[p].us));
  return perf::format_text("  %-34s %-5s %7.1f%%  (%s)\n", shortName(run.file, dir).c_str(), run.era.c_str(),
                           100 * medianAbs(errors),
                           standIns.empty() ? "none: it measures no figure alone" : standIns.c_str());
}

}  // namespace

std::string check(const Options& options) {
  const MeasuredRun run = readMeasuredRun(options.check);
  // What the file's name says and the command line says must agree.
  if (options.collectiveGiven && run.collective && options.collective != *run.collective)
    throw UsageError("--coll " + std::string(perf::collective_name(options.collective)) + ": " + run.file +
                     " measured " + std::string(perf::collective_name(*run.collective)));
  if (options.typeGiven && run.type && options.type != *run.type)
    throw UsageError("--dtype " + std::string(perf::type_name(options.type)) + ": " + run.file + " measured " +
                     std::string(perf::type_name(*run.type)));
  if (options.ranks != 0 && run.ranks != 0 && options.ranks != run.ranks)
    throw UsageError("--ranks " + std::to_string(options.ranks) + ": " + run.file + " measured " +
                     std::to_string(run.ranks) + " ranks");
  const Options o = runOptions(options, run, false);
  const std::vector<Row> rows = predictRun(o, run);
  const Row& first = rows.at(0);
  const std::string era = first.on->topology().engine.runtime;
  std::string text = "# trnccl-sim --check " + run.file + ": " + std::string(perf::collective_name(o.collective)) +
                     " " + std::string(perf::type_name(o.type)) + ", " + first.on->describe() + ", --algo " +
                     options.algorithms.at(0) + ", Neuron runtime " + (era.empty() ? "of the file" : era) +
                     " (measured on real hardware against the model)\n";
  text += "# busbw in the file: " + std::string(unitName(run.unit)) + "; shown here in decimal GB/s\n";
  text += "# band: +-" + perf::format_text("%.0f%%", 100 * first.band.fraction) + ", " + first.band.basis + "\n";
  text += perf::format_text("# %12s %14s %14s %23s %8s %4s %9s  %-18s %s\n", "size(B)", "measured(us)", "predicted(us)",
                            "band(us)", "error", "in", "busbw", "algorithm", "bound (engine)");
  std::vector<double> errors;
  size_t inBand = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const double predicted = rows[i].prediction.seconds * 1e6, measured = run.points[i].us;
    const double low = rows[i].band.low(predicted), high = rows[i].band.high(predicted);
    const bool in = measured >= low && measured <= high;
    inBand += in;
    errors.push_back(errorOf(predicted, measured));
    text += perf::format_text("  %12zu %14.1f %14.1f %11.1f-%-11.1f %+7.1f%% %4s %9.2f  %-18s %s (%s)\n",
                              run.points[i].bytes, measured, predicted, low, high, 100 * errors.back(),
                              in ? "yes" : "no", run.points[i].busbw, rows[i].prediction.algorithm.c_str(),
                              rows[i].prediction.bound.c_str(), sim::engineName(rows[i].prediction.engine));
  }
  text += perf::format_text("# median absolute error: %.1f%% over %zu sizes; %zu of %zu measured within the band\n",
                            100 * medianAbs(errors), errors.size(), inBand, errors.size());
  return text;
}

std::string calibrate(const Options& options) {
  const std::string& dir = options.calibrate;
  const Fit fit(options, readMeasuredRuns(dir));
  const std::vector<double> start = fit.startingValues();
  // Scope by scope, then every figure together in small steps (the scopes
  // share files through the DMA figure and the newest era).
  std::vector<double> fitted = fit.fitByScope(start, fit.scopes(), -1, -1, 3, 40, 0.5);
  fitted = fit.fit(fitted, {}, -1, -1, 20 * static_cast<int>(start.size()), 0.05);
  const std::vector<std::vector<double>> predicted = fit.predictions(fitted);

  size_t points = 0;
  for (const MeasuredRun& r : fit.runs()) points += r.points.size();
  std::string text =
      "# trnccl-sim --calibrate " + dir + ": " + std::to_string(fit.figures().size()) + " figures fitted to " +
      std::to_string(fit.runs().size()) + " files, " + std::to_string(points) +
      " measurements of real hardware (--algo " + options.algorithms.at(0) +
      ", least squares on log time, each file weighted alike, by Nelder-Mead over one scope's figures at a time, "
      "three rounds, then over all together)\n";
  text += perf::format_text("# %-10s %-15s %12s %12s  %-13s %s\n", "scope", "figure", "fitted", "start", "unit",
                            "fitted to");
  for (size_t f = 0; f < fit.figures().size(); ++f) {
    const FittedFigure& figure = fit.figures()[f];
    text += perf::format_text("  %-10s %-15s %12.4g %12.4g  %-13s %s\n", figure.scope.c_str(), figure.knob.c_str(),
                              fitted[f], start[f], unitOf(figure.knob), filesOf(fit, figure, dir).c_str());
  }
  text += perf::format_text("# %-34s %-5s %11s %13s %14s %8s %14s %8s\n", "file", "era", "size(B)", "measured(us)",
                            "predicted(us)", "error", "left out(us)", "error");
  std::vector<double> all, allLeftOut;
  std::map<std::string, std::vector<double>> leftOutByEra;
  std::map<std::string, std::map<std::string, std::vector<double>>> leftOutByMachine;  // era, machine
  std::string perFile, unmeasured;
  for (size_t r = 0; r < fit.runs().size(); ++r) {
    const MeasuredRun& run = fit.runs()[r];
    std::vector<double> errors, leftOutErrors;
    for (size_t p = 0; p < run.points.size(); ++p) {
      // Refitted without this point, the figures of its machine and era
      // only, from the full fit: does the model carry to it?
      const std::vector<double> without =
          fit.fitByScope(fitted, fit.scopesOf(r), static_cast<int>(r), static_cast<int>(p), 1, 15, 0.2);
      const double alone = fit.predictions(without, {r})[r][p];
      errors.push_back(errorOf(predicted[r][p], run.points[p].us));
      leftOutErrors.push_back(errorOf(alone, run.points[p].us));
      text +=
          perf::format_text("  %-34s %-5s %11zu %13.1f %14.1f %+7.1f%% %14.1f %+7.1f%%\n",
                            shortName(run.file, dir).c_str(), run.era.c_str(), run.points[p].bytes, run.points[p].us,
                            predicted[r][p], 100 * errors.back(), alone, 100 * leftOutErrors.back());
    }
    perFile += perf::format_text("  %-34s %-5s %7.1f%% %14.1f%%\n", shortName(run.file, dir).c_str(), run.era.c_str(),
                                 100 * medianAbs(errors), 100 * medianAbs(leftOutErrors));
    unmeasured += unmeasuredRow(fit, fitted, r, dir);
    all.insert(all.end(), errors.begin(), errors.end());
    allLeftOut.insert(allLeftOut.end(), leftOutErrors.begin(), leftOutErrors.end());
    auto& era = leftOutByEra[run.era];
    era.insert(era.end(), leftOutErrors.begin(), leftOutErrors.end());
    auto& machine = leftOutByMachine[run.era][fit.machineOf(r)];
    machine.insert(machine.end(), leftOutErrors.begin(), leftOutErrors.end());
  }
  text += perf::format_text("# median absolute error per file: %-21s %8s %15s\n", "", "fit", "leave-one-out");
  text += perFile;
  text += perf::format_text("# median absolute error: %.1f%% (fit), %.1f%% (leave-one-out) over all %zu\n",
                            100 * medianAbs(all), 100 * medianAbs(allLeftOut), all.size());
  text +=
      "# median absolute error per file unmeasured (its own figures another scope's, the others refitted "
      "without it: a machine or era nobody measured):\n";
  text += unmeasured;
  text += "# bands: the 80th percentile of |leave-one-out error| per runtime era and per machine it was fitted on\n";
  nlohmann::json bands = nlohmann::json::object();
  for (const auto& [era, errors] : leftOutByEra) {
    text += perf::format_text("  %-5s %-14s %.3f\n", era.c_str(), "all", quantileAbs(errors, 0.8));
    bands[era]["band"] = {{"value", quantileAbs(errors, 0.8)}, {"source", "trnccl-sim --calibrate " + dir}};
    for (const auto& [machine, machineErrors] : leftOutByMachine[era]) {
      text += perf::format_text("  %-5s %-14s %.3f\n", era.c_str(), machine.c_str(), quantileAbs(machineErrors, 0.8));
      bands[era]["fittedOn"][machine] = quantileAbs(machineErrors, 0.8);
    }
  }
  // As the files take them: topologies/*.json (per generation) and
  // runtimes/ERA.json (per era), in SI units, each naming its files.
  nlohmann::json block = nlohmann::json::object();
  for (size_t f = 0; f < fit.figures().size(); ++f) {
    const FittedFigure& figure = fit.figures()[f];
    const FileKey key = fileKeyOf(figure.knob);
    block[figure.scope][key.name] = {
        {"value", fitted[f] * key.perUnit},
        {"source", "fitted to " + filesOf(fit, figure, dir) + " in " + dir + " (trnccl-sim --calibrate)"}};
  }
  text += "\n# for topologies/*.json (per generation) and topologies/runtimes/ERA.json (per era):\n";
  for (const auto& [era, entries] : bands.items())
    for (const auto& [key, value] : entries.items()) block[era][key] = value;
  text += block.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return text;
}

}  // namespace trnccl::simtool
