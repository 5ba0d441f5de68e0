#include "core/network_model.h"

#include <string>

namespace trnccl::core {
namespace {

// The device's vector engine on a 2-input fp32 reduction, in output bytes/s.
double reduceRate(const device::DeviceModel& model) {
  constexpr size_t kElements = 1 << 20;
  return kElements * 4.0 / device::vectorReduceSeconds(model, kElements, 2, 4);
}

// Figures of the shm transport on a commodity host (README's measurements:
// about 6.5 GB/s per rank for large messages, about 1 us per message).
constexpr double kHostPortBytesPerSec = 6.5e9;
constexpr double kHostMessageLatencySec = 1e-6;

// Each rank's port into the host's shared memory: links 2r (out) and 2r+1
// (in), after `first` links of something else.
class HostPorts {
 public:
  HostPorts(int nranks, int first) : first_(first) {
    for (int r = 0; r < nranks; ++r) {
      names_.push_back("rank" + std::to_string(r) + " out");
      names_.push_back("rank" + std::to_string(r) + " in");
    }
  }
  int count() const { return static_cast<int>(names_.size()); }
  bool owns(int link) const { return link >= first_ && link < first_ + count(); }
  const std::string& name(int link) const { return names_.at(link - first_); }
  void addPath(int from, int to, algo::Path& path) const {
    path.links.push_back(first_ + 2 * from);
    path.links.push_back(first_ + 2 * to + 1);
    path.latencySec += kHostMessageLatencySec;
  }

 private:
  int first_;
  std::vector<std::string> names_;
};

class FabricNetwork : public algo::Network {
 public:
  FabricNetwork(const topo::Topology& topology, const topo::Fabric& fabric, const std::vector<topo::CoreLocation>& cores,
                bool throughHost)
      : fabric_(fabric),
        cores_(cores),
        reduceRate_(reduceRate(topology.device)),
        host_(throughHost ? static_cast<int>(cores.size()) : 0, fabric.linkCount()) {
    for (int l = 0; l < fabric.linkCount(); ++l) names_.push_back(fabric.link(l).name);
  }
  int linkCount() const override { return fabric_.linkCount() + host_.count(); }
  double linkBytesPerSec(int link) const override {
    return host_.owns(link) ? kHostPortBytesPerSec : fabric_.link(link).bytesPerSec;
  }
  const std::string& linkName(int link) const override { return host_.owns(link) ? host_.name(link) : names_.at(link); }
  algo::Path path(int from, int to) const override {
    topo::Route route = fabric_.route(cores_.at(from), cores_.at(to));
    algo::Path path{std::move(route.links), route.latencySec};
    if (host_.count() > 0) host_.addPath(from, to, path);
    return path;
  }
  double reduceBytesPerSec() const override { return reduceRate_; }

 private:
  const topo::Fabric& fabric_;
  const std::vector<topo::CoreLocation>& cores_;
  std::vector<std::string> names_;
  double reduceRate_;
  HostPorts host_;
};

class HostNetwork : public algo::Network {
 public:
  explicit HostNetwork(int nranks) : reduceRate_(reduceRate(device::trainium())), host_(nranks, 0) {}
  int linkCount() const override { return host_.count(); }
  double linkBytesPerSec(int) const override { return kHostPortBytesPerSec; }
  const std::string& linkName(int link) const override { return host_.name(link); }
  algo::Path path(int from, int to) const override {
    algo::Path path;
    host_.addPath(from, to, path);
    return path;
  }
  double reduceBytesPerSec() const override { return reduceRate_; }

 private:
  double reduceRate_;
  HostPorts host_;
};

}  // namespace

std::unique_ptr<algo::Network> fabricNetwork(const topo::Topology& topology, const topo::Fabric& fabric,
                                             const std::vector<topo::CoreLocation>& cores, bool throughHost) {
  return std::make_unique<FabricNetwork>(topology, fabric, cores, throughHost);
}

std::unique_ptr<algo::Network> hostNetwork(int nranks) { return std::make_unique<HostNetwork>(nranks); }

}  // namespace trnccl::core
