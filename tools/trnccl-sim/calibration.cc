#include "calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "logic/datatypes.h"
#include "logic/text_format.h"
#include "measured_run.h"
#include "sweep.h"
#include "topology/topology.h"

namespace trnccl::simtool {
namespace {

constexpr size_t kFigures = topo::kEngineFigures.size();
using Figures = std::array<double, kFigures>;  // in each figure's unit

// The sweep that predicts `run`: what its name says, the command line for
// what it leaves out (--coll, --dtype, --ranks, --topo's ":N"), each size of
// the file once.
Options sweepOf(const Options& options, const Variant& variant, const MeasuredRun& run) {
  Options o = options;
  o.variants = {variant};
  if (run.instances > 0) o.variants[0].knobs.nodes = run.instances;
  o.collective = run.collective.value_or(options.collective);
  o.type = run.type.value_or(options.type);
  o.ranks = run.ranks > 0 ? run.ranks : options.ranks;
  o.algorithms = {options.algorithms.at(0)};
  o.stragglers.clear();
  o.sizes.clear();
  for (const Measurement& m : run.points) o.sizes.push_back(m.bytes);
  return o;
}

// "all_reduce float, 64 ranks, 2 instances of trn1.32xlarge"
std::string sweepText(const Options& o) {
  const Variant& v = o.variants.at(0);
  return std::string(perf::collective_name(o.collective)) + " " + std::string(perf::type_name(o.type)) + ", " +
         (o.ranks > 0 ? std::to_string(o.ranks) : std::string("all")) + " ranks, " +
         (v.knobs.nodes ? std::to_string(*v.knobs.nodes) + " instances of " : std::string()) + v.label;
}

// The run's sizes on `variant`; throws what sweep() could not price.
std::vector<Row> predict(const Options& options, const Variant& variant, const MeasuredRun& run) {
  const Options o = sweepOf(options, variant, run);
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

double errorOf(double predictedUs, double measuredUs) { return (predictedUs - measuredUs) / measuredUs; }

double medianAbs(std::vector<double> errors) {
  for (double& e : errors) e = std::fabs(e);
  std::sort(errors.begin(), errors.end());
  const size_t n = errors.size();
  return n == 0 ? 0 : n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
}

// Every measurement of every run, with its prediction under some figures.
struct Point {
  size_t run = 0;
  Measurement measured;
};

class Fit {
 public:
  Fit(const Options& options, std::vector<MeasuredRun> runs) : options_(options), runs_(std::move(runs)) {
    for (size_t r = 0; r < runs_.size(); ++r)
      for (const Measurement& m : runs_[r].points) points_.push_back({r, m});
  }
  const std::vector<Point>& points() const { return points_; }
  const std::vector<MeasuredRun>& runs() const { return runs_; }

  // Per point, the predicted microseconds under `figures`.
  std::vector<double> predictions(const Figures& figures) const {
    Variant v = options_.variants.at(0);
    for (size_t i = 0; i < kFigures; ++i) v.knobs.engine[i] = figures[i];
    std::vector<double> us;
    for (const MeasuredRun& run : runs_)
      for (const Row& row : predict(options_, v, run)) us.push_back(row.prediction.seconds * 1e6);
    return us;
  }

  // Least squares on log time over every point but `leftOut` (none: -1),
  // Nelder-Mead over the figures' logarithms from `start`.
  Figures fit(const Figures& start, int leftOut, int evaluations) const {
    const auto cost = [&](const std::array<double, kFigures>& x) {
      Figures f;
      for (size_t i = 0; i < kFigures; ++i) f[i] = std::exp(x[i]);
      const std::vector<double> us = predictions(f);
      double sum = 0;
      for (size_t p = 0; p < points_.size(); ++p)
        if (static_cast<int>(p) != leftOut) sum += std::pow(std::log(us[p] / points_[p].measured.us), 2);
      return sum;
    };
    std::array<double, kFigures> x0;
    for (size_t i = 0; i < kFigures; ++i) x0[i] = std::log(std::max(start[i], 1e-3));
    const std::array<double, kFigures> best = nelderMead(cost, x0, evaluations);
    Figures f;
    for (size_t i = 0; i < kFigures; ++i) f[i] = std::exp(best[i]);
    return f;
  }

 private:
  using X = std::array<double, kFigures>;
  template <class Cost>
  static X nelderMead(const Cost& cost, const X& x0, int evaluations) {
    std::vector<std::pair<double, X>> simplex;
    simplex.emplace_back(cost(x0), x0);
    for (size_t i = 0; i < kFigures; ++i) {
      X x = x0;
      x[i] += 0.5;  // a factor of 1.65 on each figure
      simplex.emplace_back(cost(x), x);
    }
    int used = static_cast<int>(simplex.size());
    const auto along = [](const X& from, const X& to, double t) {
      X x;
      for (size_t i = 0; i < kFigures; ++i) x[i] = from[i] + t * (to[i] - from[i]);
      return x;
    };
    while (used < evaluations) {
      std::sort(simplex.begin(), simplex.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      if (simplex.back().first - simplex.front().first < 1e-9) break;
      X centroid{};
      for (size_t k = 0; k + 1 < simplex.size(); ++k)
        for (size_t i = 0; i < kFigures; ++i) centroid[i] += simplex[k].second[i] / kFigures;
      auto& worst = simplex.back();
      const X reflected = along(worst.second, centroid, 2);
      const double fr = cost(reflected);
      ++used;
      if (fr < simplex.front().first) {
        const X expanded = along(worst.second, centroid, 3);
        const double fe = cost(expanded);
        ++used;
        worst = fe < fr ? std::pair{fe, expanded} : std::pair{fr, reflected};
      } else if (fr < simplex[simplex.size() - 2].first) {
        worst = {fr, reflected};
      } else {
        const X contracted = along(worst.second, centroid, 0.5);
        const double fc = cost(contracted);
        ++used;
        if (fc < worst.first) {
          worst = {fc, contracted};
        } else {  // shrink toward the best
          for (size_t k = 1; k < simplex.size(); ++k) {
            simplex[k].second = along(simplex.front().second, simplex[k].second, 0.5);
            simplex[k].first = cost(simplex[k].second);
            ++used;
          }
        }
      }
    }
    return std::min_element(simplex.begin(), simplex.end(),
                            [](const auto& a, const auto& b) { return a.first < b.first; })
        ->second;
  }

  const Options& options_;
  std::vector<MeasuredRun> runs_;
  std::vector<Point> points_;
};

// The figures the topology file gives (a figure it lacks starts at 1 unit).
Figures startingFigures(const Variant& v) {
  const topo::Topology t = topo::loadTopology(v.topology);
  Figures f;
  for (size_t i = 0; i < kFigures; ++i) {
    const double value = t.engine.*topo::kEngineFigures[i].member / topo::kEngineFigures[i].perUnit;
    f[i] = value > 0 ? value : 1;
  }
  return f;
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
  const Variant& v = options.variants.at(0);
  const std::vector<Row> rows = predict(options, v, run);
  const Options o = sweepOf(options, v, run);
  std::string text = "# trnccl-sim --check " + run.file + ": " + std::string(perf::collective_name(o.collective)) +
                     " " + std::string(perf::type_name(o.type)) + ", " + rows.at(0).on->describe() + ", --algo " +
                     options.algorithms.at(0) + " (measured on real hardware against the model)\n";
  text += perf::format_text("# %12s %14s %14s %8s  %-18s %s\n", "size(B)", "measured(us)", "predicted(us)", "error",
                            "algorithm", "bound (engine)");
  std::vector<double> errors;
  for (size_t i = 0; i < rows.size(); ++i) {
    const double predicted = rows[i].prediction.seconds * 1e6, measured = run.points[i].us;
    errors.push_back(errorOf(predicted, measured));
    text += perf::format_text("  %12zu %14.1f %14.1f %+7.1f%%  %-18s %s (%s)\n", run.points[i].bytes, measured,
                              predicted, 100 * errors.back(), rows[i].prediction.algorithm.c_str(),
                              rows[i].prediction.bound.c_str(), sim::engineName(rows[i].prediction.engine));
  }
  text += perf::format_text("# median absolute error: %.1f%% over %zu sizes\n", 100 * medianAbs(errors), errors.size());
  return text;
}

std::string calibrate(const Options& options) {
  const Variant& v = options.variants.at(0);
  const Fit fit(options, readMeasuredRuns(options.calibrate));
  const Figures was = startingFigures(v);
  const Figures fitted = fit.fit(was, -1, 600);
  const std::vector<double> predicted = fit.predictions(fitted);

  std::string text = "# trnccl-sim --calibrate " + options.calibrate + ": " + v.label +
                     "'s collectiveEngine fitted to " + std::to_string(fit.runs().size()) + " files, " +
                     std::to_string(fit.points().size()) + " measurements of real hardware (--algo " +
                     options.algorithms.at(0) + ", least squares on log time)\n";
  text += perf::format_text("# %-14s %12s %12s  %s\n", "figure", "fitted", "start", "unit");
  for (size_t i = 0; i < kFigures; ++i)
    text += perf::format_text("  %-14s %12.4g %12.4g  %s\n", topo::kEngineFigures[i].knob, fitted[i], was[i],
                              topo::kEngineFigures[i].unit);
  text += perf::format_text("# %-28s %11s %13s %14s %8s %14s %8s\n", "file", "size(B)", "measured(us)", "predicted(us)",
                            "error", "left out(us)", "error");
  std::vector<double> errors, leftOutErrors;
  for (size_t p = 0; p < fit.points().size(); ++p) {
    const Point& point = fit.points()[p];
    // Refitted without this point, from the full fit: does the model carry?
    const double alone = fit.predictions(fit.fit(fitted, static_cast<int>(p), 250))[p];
    errors.push_back(errorOf(predicted[p], point.measured.us));
    leftOutErrors.push_back(errorOf(alone, point.measured.us));
    const std::string name = std::filesystem::path(fit.runs()[point.run].file).filename().string();
    text +=
        perf::format_text("  %-28s %11zu %13.1f %14.1f %+7.1f%% %14.1f %+7.1f%%\n", name.c_str(), point.measured.bytes,
                          point.measured.us, predicted[p], 100 * errors.back(), alone, 100 * leftOutErrors.back());
  }
  text += perf::format_text("# median absolute error: %.1f%% (fit), %.1f%% (leave-one-out)\n", 100 * medianAbs(errors),
                            100 * medianAbs(leftOutErrors));
  text += "# for the topology file:\n  \"collectiveEngine\": {\n";
  for (size_t i = 0; i < kFigures; ++i) {
    const topo::EngineFigure& f = topo::kEngineFigures[i];
    const std::string source = nlohmann::json("fitted to " + options.calibrate + " (trnccl-sim --calibrate)")
                                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text += perf::format_text("    \"%s\": {\"value\": %.4g, \"source\": %s}%s\n", f.key, fitted[i] * f.perUnit,
                              source.c_str(), i + 1 < kFigures ? "," : "");
  }
  return text + "  }\n";
}

}  // namespace trnccl::simtool
