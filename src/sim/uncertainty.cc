#include "sim/uncertainty.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "topology/runtime_era.h"

namespace trnccl::sim {
namespace {

// How far the model was off on calibration files it was not given, each
// unmeasured in turn (trnccl-sim --calibrate ../shared/calibration, its
// "unmeasured" table; median absolute error): the floor of a band where the
// same has to be done.
// Trainium2's allreduce with Trainium's hardware figures standing in.
constexpr double kUnmeasuredGeneration = 3.439;
// trn1's 32-rank all-gather from the rest of its era's files (the 2-rank
// all-reduce alone): another collective and shape on a fitted machine.
constexpr double kUnmeasuredShape = 0.624;

std::string percent(double fraction) { return std::to_string(static_cast<int>(std::lround(100 * fraction))) + "%"; }

}  // namespace

Uncertainty uncertaintyOf(const topo::Topology& t) {
  const std::string generation = t.device.generation;
  const topo::RuntimeEra era = topo::loadRuntimeEra(t.engine.runtime);
  Uncertainty u{era.band.value, ""};
  const std::string machine = generation + " x " + std::to_string(t.nodes);
  if (t.engine.runtime.empty()) {
    u.fraction *= 4;
    u.basis = "off the fit: the topology file's own runtime figures (x4 runtime " + era.name + "'s band)";
    return u;
  }
  if (!t.engine.sources[1].starts_with("fitted")) {
    u.fraction = std::max(4 * u.fraction, kUnmeasuredGeneration);
    u.basis = "off the fit: " + std::string(t.name) +
              "'s hardware figures are not fitted (as far as trn2 was with trn1's: " + percent(kUnmeasuredGeneration) +
              ")";
    return u;
  }
  std::vector<std::string> on;
  for (const auto& fitted : era.fittedOn) on.push_back(fitted.first);
  const auto same = std::find(on.begin(), on.end(), generation + ":" + std::to_string(t.nodes));
  const bool generationFitted =
      std::any_of(on.begin(), on.end(), [&](const std::string& g) { return g.starts_with(generation + ":"); });
  if (same != on.end()) {
    u.fraction = era.fittedOn[static_cast<size_t>(same - on.begin())].second;
    u.basis = "fitted: " + machine + " under runtime " + era.name;
  } else if (generationFitted) {
    // From the spread of this generation's own files under the era.
    u.fraction = kUnmeasuredShape;
    for (const auto& [fitted, band] : era.fittedOn)
      if (fitted.starts_with(generation + ":")) u.fraction = std::max(u.fraction, 2 * band);
    u.basis = "off the fit: runtime " + era.name + " fitted on " + generation +
              " with other instance counts (x2 their spread, at least the " + percent(kUnmeasuredShape) +
              " of a shape left unmeasured)";
  } else {
    u.fraction *= 2;
    u.basis = "off the fit: runtime " + era.name + " not fitted on " + generation + " (x2)";
    if (std::none_of(on.begin(), on.end(),
                     [&](const std::string& g) { return g.ends_with(":" + std::to_string(t.nodes)); })) {
      u.fraction *= 2;
      u.basis += ", nor on " + std::to_string(t.nodes) + " instances (x2)";
    }
  }
  // Across instances under an era whose proxy cost was not fitted (no EFA
  // run of that era): the whole EFA path is a guess.
  if (t.nodes > 1 && t.engine.proxySource.find("assumed") != std::string::npos) {
    u.fraction *= 2;
    u.basis += "; the era's EFA proxy is assumed (x2)";
  }
  return u;
}

}  // namespace trnccl::sim
