// The Neuron runtime's own costs, per release era (topologies/runtimes/ERA.json):
// what a collective costs beside the hardware. The same trn1 chips ran a
// 32-rank all-gather in 151-179 us under 2023 runtimes and in 6-23 us under
// 2025's, so these figures belong to the software, not to the chip
// generation whose figures the topology file holds.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "topology/topology.h"

namespace trnccl::topo {

// One figure of an era and where it comes from (a fit names its files).
struct EraFigure {
  double value = 0;
  std::string source;
};

struct RuntimeEra {
  std::string name;      // "2023", "2025", "2026"
  std::string releases;  // which Neuron releases it stands for
  EraFigure launchSec;   // per collective call: launch and the final synchronisation
  EraFigure stepSec;     // per message a chip's DMA engines issue (descriptors, semaphores)
  EraFigure proxySec;    // per message crossing EFA: the runtime's network proxy
  // The slices a received message is reduced in, overlapping the next
  // slice's transfer (optional in the file: 1, reduced whole).
  EraFigure reduceSlices{1, "none said: a message is reduced once it has arrived"};
  // The leave-one-out spread of the era's fit over all its files (a
  // fraction): the base of the band of a prediction off its machines.
  EraFigure band;
  // The machines the era's figures were fitted on, "generation:instances"
  // ("trainium:1"), each with the leave-one-out spread of its own files:
  // the band of a prediction on that machine.
  std::vector<std::pair<std::string, double>> fittedOn;
};

// Every era shipped, oldest first ("2023", "2025", "2026").
std::vector<std::string> runtimeEraNames();

// `name` empty: the newest. Throws Error(InvalidArgument) naming an unknown
// era and listing the known ones, or the file and JSON pointer of a bad value.
RuntimeEra loadRuntimeEra(const std::string& name);

// One era file's text (tests); fileName is only used in messages.
RuntimeEra parseRuntimeEra(const std::string& jsonText, const std::string& fileName);

// The era's figures in place of `t`'s runtime figures (launch, per message,
// per EFA message), its name in t.engine.runtime.
void applyRuntimeEra(const RuntimeEra& era, Topology& t);

}  // namespace trnccl::topo
