// The machine as the tuner's cost model sees it (algo::Network): the
// topology's links and routes between the NeuronCores the ranks run on, or,
// without a topology, this host as it is.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/layout.h"
#include "topology/fabric.h"

namespace trnccl::algo {

// Bytes that really move through this host's shared memory (the links are
// not emulated): each rank's thread copies and reduces them with
// `coreShare` of a core (HostCensus::coreShare; 0.25 for 8 ranks on 2
// cores), so its host port and its reductions run at that share of one
// core's speed, and a peer it waits for runs only that share of the time.
struct HostCarriage {
  double coreShare = 1;
};

// Routes between ranks over the topology's fabric. Keeps references to both.
// With `host`, every message also crosses its sender's and receiver's host
// ports and is reduced at the host's speed: an algorithm that suits the
// modelled links but not the host that carries the data does not win; and
// one thread per rank carries all its channels (Network::channelsShareRank),
// so a second channel is not a second engine.
std::unique_ptr<Network> fabricNetwork(const topo::Topology& topology, const topo::Fabric& fabric,
                                       const std::vector<topo::CoreLocation>& cores,
                                       std::optional<HostCarriage> host = std::nullopt);

// The chips' 2-input reductions, output bytes per second: the collective
// engine's fitted figure where the topology has one, else the device model's
// vector engine.
double reductionBytesPerSec(const topo::Topology& topology);

// A host without a topology: each rank reads and writes shared memory
// through its own port (one link out, one in), as the shm transport does.
std::unique_ptr<Network> hostNetwork(int nranks, HostCarriage host = {});

// The layout algorithms see for ranks on `cores` of `t`: the instance of each
// rank when they span several, and the grid they form when they all sit on
// one instance and fill a sub-grid of its NeuronCores (rows and columns
// compressed to the ones used), so a communicator split along a row or a
// column still has one.
RankLayout topologyLayout(const topo::Topology& t, const std::vector<topo::CoreLocation>& cores);

}  // namespace trnccl::algo
