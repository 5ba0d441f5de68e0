#include "core/network_model.h"

#include <string>

namespace trnccl::core {
namespace {

// The device's vector engine on a 2-input fp32 reduction, in output bytes/s.
double reduceRate(const device::DeviceModel& model) {
  constexpr size_t kElements = 1 << 20;
  return kElements * 4.0 / device::vectorReduceSeconds(model, kElements, 2, 4);
}

class FabricNetwork : public algo::Network {
 public:
  FabricNetwork(const topo::Topology& topology, const topo::Fabric& fabric, const std::vector<topo::CoreLocation>& cores)
      : fabric_(fabric), cores_(cores), reduceRate_(reduceRate(topology.device)) {
    for (int l = 0; l < fabric.linkCount(); ++l) names_.push_back(fabric.link(l).name);
  }
  int linkCount() const override { return fabric_.linkCount(); }
  double linkBytesPerSec(int link) const override { return fabric_.link(link).bytesPerSec; }
  const std::string& linkName(int link) const override { return names_.at(link); }
  algo::Path path(int from, int to) const override {
    topo::Route route = fabric_.route(cores_.at(from), cores_.at(to));
    return algo::Path{std::move(route.links), route.latencySec};
  }
  double reduceBytesPerSec() const override { return reduceRate_; }

 private:
  const topo::Fabric& fabric_;
  const std::vector<topo::CoreLocation>& cores_;
  std::vector<std::string> names_;
  double reduceRate_;
};

// Figures of the shm transport on a commodity host (README's measurements:
// about 6.5 GB/s per rank for large messages, about 1 us per message).
constexpr double kHostPortBytesPerSec = 6.5e9;
constexpr double kHostMessageLatencySec = 1e-6;

class HostNetwork : public algo::Network {
 public:
  explicit HostNetwork(int nranks) : reduceRate_(reduceRate(device::trainium())) {
    for (int r = 0; r < nranks; ++r) {
      names_.push_back("rank" + std::to_string(r) + " out");
      names_.push_back("rank" + std::to_string(r) + " in");
    }
  }
  int linkCount() const override { return static_cast<int>(names_.size()); }
  double linkBytesPerSec(int) const override { return kHostPortBytesPerSec; }
  const std::string& linkName(int link) const override { return names_.at(link); }
  algo::Path path(int from, int to) const override { return algo::Path{{2 * from, 2 * to + 1}, kHostMessageLatencySec}; }
  double reduceBytesPerSec() const override { return reduceRate_; }

 private:
  std::vector<std::string> names_;
  double reduceRate_;
};

}  // namespace

std::unique_ptr<algo::Network> fabricNetwork(const topo::Topology& topology, const topo::Fabric& fabric,
                                             const std::vector<topo::CoreLocation>& cores) {
  return std::make_unique<FabricNetwork>(topology, fabric, cores);
}

std::unique_ptr<algo::Network> hostNetwork(int nranks) { return std::make_unique<HostNetwork>(nranks); }

}  // namespace trnccl::core
