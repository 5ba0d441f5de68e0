// How sure a prediction is: a band from the calibration's fit, wider where
// the model was not fitted. On a machine the era was fitted on it is the
// leave-one-out spread of that machine's files; elsewhere the era's spread
// over all its files (both as trnccl-sim --calibrate printed them,
// topologies/runtimes/ERA.json), widened by assumed factors, said in `basis`:
//  - x2 the spread of this generation's files for an instance count the era
//    was not fitted on with this generation, at least how far a collective
//    and shape left out of the calibration were (62%),
//  - x2 for a generation the era was not fitted on (its hardware fitted under
//    another era),
//  - x2 more across instances where the era's EFA proxy is assumed (no EFA
//    run of that era was fitted),
//  - x4 for hardware whose figures were never fitted (assumed from another),
//    at least how far Trainium2 was with Trainium's figures (344%),
//  - x4 for a file's own runtime figures (no era).
#pragma once

#include <string>

#include "topology/topology.h"

namespace trnccl::sim {

struct Uncertainty {
  double fraction = 0;  // the band is [time / (1 + fraction), time * (1 + fraction)]
  std::string basis;    // "fitted: trainium x 1 under runtime 2023", "off the fit: ..."
  double low(double seconds) const { return seconds / (1 + fraction); }
  double high(double seconds) const { return seconds * (1 + fraction); }
};

Uncertainty uncertaintyOf(const topo::Topology& t);

}  // namespace trnccl::sim
