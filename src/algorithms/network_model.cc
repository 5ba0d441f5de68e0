#include "algorithms/network_model.h"

#include <set>

#include <string>

#include "topology/core_grid.h"

namespace trnccl::algo {
double reductionBytesPerSec(const topo::Topology& topology) {
  return topology.engine.reduceBytesPerSec > 0 ? topology.engine.reduceBytesPerSec
                                               : device::reduceBytesPerSec(topology.device);
}

namespace {

// Figures of the shm transport on a commodity host with a core per rank
// (README's measurements: about 6.5 GB/s per rank for large messages, about
// 1 us per message), and of its 2-input sums (README's kernel table: STREAM
// add at 64 MiB, 38.9 GB/s of the three streams, 13 GB/s of output).
constexpr double kHostPortBytesPerSec = 6.5e9;
constexpr double kHostMessageLatencySec = 1e-6;
constexpr double kHostReduceBytesPerSec = 13e9;

// Each rank's port into the host's shared memory: links 2r (out) and 2r+1
// (in), after `first` links of something else.
class HostPorts {
 public:
  HostPorts(int nranks, int first, HostCarriage host)
      : first_(first),
        bytesPerSec_(kHostPortBytesPerSec * host.coreShare),
        latencySec_(kHostMessageLatencySec / host.coreShare) {
    for (int r = 0; r < nranks; ++r) {
      names_.push_back("rank" + std::to_string(r) + " out");
      names_.push_back("rank" + std::to_string(r) + " in");
    }
  }
  int count() const { return static_cast<int>(names_.size()); }
  double bytesPerSec() const { return bytesPerSec_; }
  bool owns(int link) const { return link >= first_ && link < first_ + count(); }
  const std::string& name(int link) const { return names_.at(link - first_); }
  void addPath(int from, int to, Path& path) const {
    path.links.push_back(first_ + 2 * from);
    path.links.push_back(first_ + 2 * to + 1);
    path.latencySec += latencySec_;
  }

 private:
  int first_;
  double bytesPerSec_;
  double latencySec_;
  std::vector<std::string> names_;
};

class FabricNetwork : public Network {
 public:
  FabricNetwork(const topo::Topology& topology, const topo::Fabric& fabric,
                const std::vector<topo::CoreLocation>& cores, std::optional<HostCarriage> host)
      : fabric_(fabric),
        cores_(cores),
        reduceRate_(host ? kHostReduceBytesPerSec * host->coreShare : reductionBytesPerSec(topology)),
        launchSec_(topology.engine.launchSec),
        reduceSlices_(topology.engine.reduceSlices),
        host_(host ? static_cast<int>(cores.size()) : 0, fabric.linkCount(), host.value_or(HostCarriage{})) {
    for (int l = 0; l < fabric.linkCount(); ++l) names_.push_back(fabric.link(l).name);
  }
  int linkCount() const override { return fabric_.linkCount() + host_.count(); }
  double linkBytesPerSec(int link) const override {
    return host_.owns(link) ? host_.bytesPerSec() : fabric_.link(link).bytesPerSec;
  }
  const std::string& linkName(int link) const override { return host_.owns(link) ? host_.name(link) : names_.at(link); }
  double launchSec() const override { return launchSec_; }
  Path path(int from, int to) const override {
    topo::Route route = fabric_.route(cores_.at(from), cores_.at(to));
    Path path{std::move(route.links), route.latencySec, route.issueLink, route.issueSec};
    if (host_.count() > 0) host_.addPath(from, to, path);
    return path;
  }
  double reduceBytesPerSec() const override { return reduceRate_; }
  double reduceSlices() const override { return reduceSlices_; }
  bool channelsShareRank() const override { return host_.count() > 0; }

 private:
  const topo::Fabric& fabric_;
  const std::vector<topo::CoreLocation>& cores_;
  std::vector<std::string> names_;
  double reduceRate_;
  double launchSec_;
  double reduceSlices_;
  HostPorts host_;
};

class HostNetwork : public Network {
 public:
  HostNetwork(int nranks, HostCarriage host)
      : reduceRate_(kHostReduceBytesPerSec * host.coreShare), host_(nranks, 0, host) {}
  int linkCount() const override { return host_.count(); }
  double linkBytesPerSec(int) const override { return host_.bytesPerSec(); }
  const std::string& linkName(int link) const override { return host_.name(link); }
  Path path(int from, int to) const override {
    Path path;
    host_.addPath(from, to, path);
    return path;
  }
  double reduceBytesPerSec() const override { return reduceRate_; }
  bool channelsShareRank() const override { return true; }

 private:
  double reduceRate_;
  HostPorts host_;
};

}  // namespace

std::unique_ptr<Network> fabricNetwork(const topo::Topology& topology, const topo::Fabric& fabric,
                                       const std::vector<topo::CoreLocation>& cores, std::optional<HostCarriage> host) {
  return std::make_unique<FabricNetwork>(topology, fabric, cores, host);
}

std::unique_ptr<Network> hostNetwork(int nranks, HostCarriage host) {
  return std::make_unique<HostNetwork>(nranks, host);
}

RankLayout topologyLayout(const topo::Topology& t, const std::vector<topo::CoreLocation>& cores) {
  RankLayout layout;
  std::set<int> nodes, xs, ys;
  for (const auto& c : cores) nodes.insert(c.node);
  if (nodes.size() > 1) {
    for (const auto& c : cores) layout.instanceOf.push_back(c.node);
    return layout;
  }
  for (const auto& c : cores) {
    const topo::GridPoint p = topo::gridPoint(t, c);
    xs.insert(p.x), ys.insert(p.y);
  }
  const int width = static_cast<int>(xs.size()), height = static_cast<int>(ys.size());
  if (static_cast<size_t>(width) * height != cores.size()) return layout;
  std::vector<int> grid(cores.size(), -1);
  for (size_t r = 0; r < cores.size(); ++r) {
    const topo::GridPoint p = topo::gridPoint(t, cores[r]);
    const int x = static_cast<int>(std::distance(xs.begin(), xs.find(p.x)));
    const int y = static_cast<int>(std::distance(ys.begin(), ys.find(p.y)));
    if (grid[y * width + x] != -1) return layout;
    grid[y * width + x] = static_cast<int>(r);
  }
  layout.gridWidth = width, layout.gridHeight = height, layout.grid = std::move(grid);
  // Whole chips only: every used column of a chip, for every used chip.
  const int perChip = t.coresPerChip;
  bool wholeChips = perChip > 1 && width % perChip == 0;
  for (int x : xs)
    wholeChips = wholeChips && xs.contains(x - x % perChip) && xs.contains(x - x % perChip + perChip - 1);
  if (wholeChips) layout.ranksPerChip = perChip;
  return layout;
}

}  // namespace trnccl::algo
