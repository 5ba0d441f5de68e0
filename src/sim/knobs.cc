#include "sim/knobs.h"

#include <charconv>
#include <cmath>

#include "base/error.h"
#include "topology/runtime_era.h"

namespace trnccl::sim {
namespace {

const char* const kKnownKnobs =
    "link.bandwidth, link.latency, efa.gbps, efa.latency, nodes, launch, dma.bandwidth, dma.message, reduce.bandwidth, "
    "proxy, reduce.slices, "
    "efa.efficiency";

// A number, all of `text`, above 0 (or at least 0).
double number(const std::string& text, const std::string& knob, bool zeroAllowed) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
      !(value > 0 || (zeroAllowed && value == 0)))
    throwError(trncclInvalidArgument, "--set " + knob + "='" + text + "': expected a " +
                                          (zeroAllowed ? "non-negative" : "positive") + " number");
  return value;
}

double positive(const std::string& text, const std::string& knob) { return number(text, knob, false); }

// "2x" sets a scale, "96" an absolute value.
void scaleOrValue(const std::string& text, const std::string& knob, double& scale, std::optional<double>& value) {
  if (!text.empty() && text.back() == 'x') {
    scale = positive(text.substr(0, text.size() - 1), knob);
    value.reset();
  } else {
    value = positive(text, knob);
    scale = 1;
  }
}

}  // namespace

void setKnob(Knobs& knobs, const std::string& assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos)
    throwError(trncclInvalidArgument, "--set '" + assignment + "': expected name=value (knobs: " + kKnownKnobs + ")");
  const std::string name = assignment.substr(0, eq), value = assignment.substr(eq + 1);
  if (name == "link.bandwidth") {
    scaleOrValue(value, name, knobs.linkBandwidthScale, knobs.linkBandwidthGBs);
  } else if (name == "link.latency") {
    scaleOrValue(value, name, knobs.linkLatencyScale, knobs.linkLatencyUs);
  } else if (name == "efa.gbps") {
    knobs.efaGbps = positive(value, name);
  } else if (name == "efa.latency") {
    knobs.efaLatencyUs = positive(value, name);
  } else if (name == "efa.efficiency") {
    knobs.efaEfficiency = positive(value, name);
    if (*knobs.efaEfficiency > 1)
      throwError(trncclInvalidArgument, "--set efa.efficiency='" + value + "': a fraction of the line rate, at most 1");
  } else if (name == "proxy") {
    knobs.proxyUs = number(value, name, true);
  } else if (name == "reduce.slices") {
    knobs.reduceSlices = positive(value, name);
    if (*knobs.reduceSlices < 1)
      throwError(trncclInvalidArgument, "--set reduce.slices='" + value + "': a message is cut into 1 slice or more");
  } else if (name == "nodes") {
    const double n = positive(value, name);
    if (n != static_cast<int>(n) || n > topo::kMaxNodes)
      throwError(trncclInvalidArgument,
                 "--set nodes='" + value + "': expected a whole number from 1 to " + std::to_string(topo::kMaxNodes));
    knobs.nodes = static_cast<int>(n);
  } else {
    for (size_t i = 0; i < topo::kEngineFigures.size(); ++i)
      if (name == topo::kEngineFigures[i].knob) {
        knobs.engine[i] = number(value, name, true);  // 0: not modelled, as in a topology file
        return;
      }
    throwError(trncclInvalidArgument, "--set: unknown knob '" + name + "' (knobs: " + kKnownKnobs + ")");
  }
}

void applyKnobs(const Knobs& knobs, topo::Topology& t) {
  // The era first: a --set on one of its figures changes that figure only.
  if (!knobs.runtime.empty()) topo::applyRuntimeEra(topo::loadRuntimeEra(knobs.runtime), t);
  // NeuronLinks, or the ports and switch hops of a NeuronSwitch.
  auto bandwidth = [&](double& b) {
    b = knobs.linkBandwidthGBs ? *knobs.linkBandwidthGBs * 1e9 : b * knobs.linkBandwidthScale;
  };
  auto latency = [&](double& l) { l = knobs.linkLatencyUs ? *knobs.linkLatencyUs * 1e-6 : l * knobs.linkLatencyScale; };
  for (topo::Link& link : t.links) bandwidth(link.bytesPerSec), latency(link.latencySec);
  if (t.neuronSwitch.present()) {
    bandwidth(t.neuronSwitch.bytesPerSec);
    latency(t.neuronSwitch.latencySec);
    latency(t.neuronSwitch.crossServerLatencySec);
  }
  if (knobs.efaGbps) {
    if (t.nics.empty()) throwError(trncclInvalidArgument, "--set efa.gbps: topology '" + t.name + "' has no EFA NICs");
    for (topo::Nic& nic : t.nics) nic.bytesPerSec = *knobs.efaGbps * 1e9 / 8 / static_cast<double>(t.nics.size());
  }
  if (knobs.efaEfficiency) {
    t.efaEfficiency = *knobs.efaEfficiency;
    t.efaEfficiencySource = "--set efa.efficiency";
  }
  if (knobs.efaLatencyUs) t.efaLatencySec = *knobs.efaLatencyUs * 1e-6;
  if (knobs.nodes) t.nodes = *knobs.nodes;
  for (size_t i = 0; i < topo::kEngineFigures.size(); ++i)
    if (knobs.engine[i]) {
      const topo::EngineFigure& f = topo::kEngineFigures[i];
      t.engine.*f.member = *knobs.engine[i] * f.perUnit;
      t.engine.sources[i] = std::string("--set ") + f.knob;
    }
  if (knobs.proxyUs) {
    t.engine.proxySec = *knobs.proxyUs * 1e-6;
    t.engine.proxySource = "--set proxy";
  }
  if (knobs.reduceSlices) {
    t.engine.reduceSlices = *knobs.reduceSlices;
    t.engine.reduceSlicesSource = "--set reduce.slices";
  }
  removeFailedLinks(knobs.failedLinks, t);
}

}  // namespace trnccl::sim
