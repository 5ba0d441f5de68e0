// The machine a job runs on, as described by a topology file
// (topologies/*.json): chips and their NeuronCores, the NeuronLink graph (or
// the NeuronSwitch) between the chips of one instance, the EFA NICs that join
// instances, and the device figures of each chip.
#pragma once

#include <string>
#include <vector>

#include "device/model.h"
#include "topology/engine_model.h"

namespace trnccl::topo {

// Bounds on what a file may describe; they keep every NeuronCore index of a
// job (up to 65536 x 1024 x 16 = 2^30) within an int.
constexpr int kMaxNodes = 65536;
constexpr int kMaxChips = 1024;  // per instance
constexpr int kMaxCoresPerChip = 16;

// A NeuronLink between two chips of one instance; full duplex, the figures
// hold for each direction.
struct Link {
  int a = 0, b = 0;
  double bytesPerSec = 0;
  double latencySec = 0;
};

// NeuronSwitch (Trn3): every chip has a port into a first-level switch shared
// by its server's chips; second-level switches join the servers. Any chip
// reaches any other through the switches, with no chip forwarding on the way.
// chipsPerServer == 0: no switch (the chips' links join them).
struct NeuronSwitch {
  int chipsPerServer = 0;
  double bytesPerSec = 0;            // each chip's port, each direction
  double latencySec = 0;             // through the first-level switch
  double crossServerLatencySec = 0;  // added through the second level

  bool present() const { return chipsPerServer > 0; }
  int serverOf(int chip) const { return chip / chipsPerServer; }
};

// An EFA NIC and the chip it sits next to.
struct Nic {
  int chip = 0;
  double bytesPerSec = 0;
};

struct Topology {
  std::string name;  // the file's "name"
  std::string file;  // where it was read from
  int chips = 1;     // per instance
  int coresPerChip = 1;
  int nodes = 1;              // instances joined by EFA
  std::vector<int> torus;     // NeuronLink torus shape ({4,4}, {12}, {4,4,4}); empty without one
  std::vector<Link> links;    // every chip link of one instance (from the torus and/or listed)
  NeuronSwitch neuronSwitch;  // instead of links: the chips of a switched instance
  std::vector<Nic> nics;      // per instance
  double efaLatencySec = 15e-6;
  // The fraction of a NIC's line rate a collective's messages get from it
  // (the files' /efa/efficiency, fitted per generation), and its source.
  double efaEfficiency = 1;
  std::string efaEfficiencySource;
  double onChipBytesPerSec = 0;  // between the NeuronCores of one chip
  double onChipLatencySec = 0;
  device::DeviceModel device = device::trainium();
  EngineModel engine;  // none: only the links cost time

  int coresPerNode() const { return chips * coresPerChip; }
  int totalCores() const { return nodes * coresPerNode(); }
};

// spec: a shipped name ("trn1.32xlarge") or a path to a .json file, either
// optionally suffixed ":N" for N instances joined by EFA ("trn1.32xlarge:4"),
// which replaces the file's "nodes".
// Shipped files are searched in $TRNCCL_TOPO_DIR, then the installed data
// directory, then the source tree's topologies/. Throws
// Error(trncclInvalidArgument) naming the file, the JSON pointer of the bad
// value and what is wrong with it.
Topology loadTopology(const std::string& spec);

// One topology file's text; fileName is only used in messages and
// Topology::file.
Topology parseTopology(const std::string& jsonText, const std::string& fileName);

// Names loadTopology accepts without a path, sorted.
std::vector<std::string> shippedTopologyNames();

}  // namespace trnccl::topo
