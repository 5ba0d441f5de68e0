// What-if knobs (`--set name=value`, and the links `--fail-link` takes out)
// applied to a topology before it is simulated, so a user asks "what if
// NeuronLink were twice as fast" or "what if this link failed" without
// editing a file.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "sim/failed_links.h"
#include "topology/topology.h"

namespace trnccl::sim {

struct Knobs {
  double linkBandwidthScale = 1;  // link.bandwidth=2x, or link.bandwidth=GB/s (absolute)
  std::optional<double> linkBandwidthGBs;
  double linkLatencyScale = 1;  // link.latency=0.5x, or link.latency=us
  std::optional<double> linkLatencyUs;
  std::optional<double> efaGbps;  // efa.gbps=3200: each instance's EFA total, split over its NICs
  std::optional<double> efaLatencyUs;
  std::optional<int> nodes;  // nodes=64
  // The collective engine's figures (topo::kEngineFigures, in their units):
  // launch=30 (us), dma.bandwidth=200 (GB/s), dma.message=1 (us); 0: not
  // modelled (launch=0,dma.bandwidth=0,dma.message=0: the links alone).
  std::array<std::optional<double>, topo::kEngineFigures.size()> engine;
  std::optional<double> efaEfficiency;  // efa.efficiency=0.5: of each NIC's line rate
  std::optional<double> proxyUs;        // proxy=5 (us): the runtime's cost per message over EFA
  std::optional<double> reduceSlices;   // reduce.slices=2: slices a message is reduced in, overlapping the next
  std::vector<ChipPair> failedLinks;    // --fail-link 3-7
  // --runtime 2023: the Neuron runtime era whose launch, per-message and
  // proxy costs apply (topo::RuntimeEra); empty: the file's, or the newest.
  std::string runtime;
};

// Applies one "name=value" to `knobs`. Throws Error(InvalidArgument) naming
// the knob and listing the known ones.
void setKnob(Knobs& knobs, const std::string& assignment);

// The topology as the knobs make it.
void applyKnobs(const Knobs& knobs, topo::Topology& topology);

}  // namespace trnccl::sim
