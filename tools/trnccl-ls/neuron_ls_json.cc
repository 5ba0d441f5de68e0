#include "neuron_ls_json.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace trnccl::ls {

namespace {

// neuron-ls prints its keys in this order.
using OrderedJson = nlohmann::ordered_json;

// An emulated device sits on no PCI bus: a well-formed address per device,
// distinct within the instance, for scripts that key devices by it.
std::string syntheticBdf(int chip) {
  char bdf[16];
  std::snprintf(bdf, sizeof bdf, "0000:%02x:00.0", (chip + 1) & 0xff);
  return bdf;
}

}  // namespace

nlohmann::ordered_json neuronLsJson(const Listing& l) {
  const topo::Topology& t = l.topology;
  // Every device may run on every CPU of this host; the NUMA node is unknown
  // ("-1", as neuron-ls writes it for a device without one).
  const std::string cpus = l.host && l.host->pus > 0 ? "0-" + std::to_string(l.host->pus - 1) : "";
  OrderedJson devices = OrderedJson::array();
  for (const ChipView& v : l.chips) {
    if (v.node != 0) continue;  // neuron-ls lists the instance it runs on
    OrderedJson cores = OrderedJson::array();
    for (int core = 0; core < t.coresPerChip; ++core) cores.push_back(topo::globalCoreIndex(t, {0, v.chip, core}));
    devices.push_back({{"neuron_device", v.chip},
                       {"bdf", syntheticBdf(v.chip)},
                       {"cpu_affinity", cpus},
                       {"numa_node", "-1"},
                       {"connected_to", v.neighbours.empty() ? OrderedJson(nullptr) : OrderedJson(v.neighbours)},
                       {"nc_count", t.coresPerChip},
                       {"memory_size", static_cast<uint64_t>(t.device.hbmBytes)},
                       {"neuroncore_ids", cores},
                       {"neuron_processes", OrderedJson::array()}});
  }
  return devices;
}

}  // namespace trnccl::ls
