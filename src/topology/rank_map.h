// Where each rank of a job runs: which instance, chip and NeuronCore.
#pragma once

#include <string>
#include <vector>

#include "topology/topology.h"

namespace trnccl::topo {

struct CoreLocation {
  int node = 0, chip = 0, core = 0;  // core: NeuronCore index within the chip
  bool operator==(const CoreLocation&) const = default;
};

// node * coresPerNode + chip * coresPerChip + core, and back.
int globalCoreIndex(const Topology& t, CoreLocation where);
CoreLocation coreLocation(const Topology& t, int globalCore);

// The chips of one instance in an order where consecutive chips are linked:
// the torus ring order (torus.h), or 0..chips-1 without a torus.
std::vector<int> chipRingOrder(const Topology& t);

// Where rank r runs, for ranks 0..nranks-1. `order`:
//   "" or "core": coresPerChip consecutive ranks per chip, chips in ring
//                 order, instances one after another;
//   "chip":       one rank per chip (NeuronCore 0), chips in ring order;
//   "3,1,..":     a comma list of global NeuronCore indices, one per rank.
// Throws Error(trncclInvalidArgument) starting with `source` (where the
// order came from, e.g. "TRNCCL_RANK_ORDER") and naming the topology when
// the ranks do not fit, the list is malformed, or a core is repeated or
// does not exist.
std::vector<CoreLocation> mapRanks(const Topology& t, int nranks, const std::string& order, const std::string& source);

}  // namespace trnccl::topo
