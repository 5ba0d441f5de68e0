// A network built by hand for tests of the cost model and the simulator:
// named links with a bandwidth, and a route (links, latency and, optionally,
// the link that issues its messages and for how long) per ordered pair of
// ranks, and a launch time per call, so every expected time can be worked out
// on paper.
#pragma once

#include <limits>
#include <map>
#include <string>
#include <vector>

#include "algorithms/cost_model.h"

namespace trnccl::test {

class HandNetwork : public algo::Network {
 public:
  int addLink(const std::string& name, double bytesPerSec) {
    names_.push_back(name);
    bandwidth_.push_back(bytesPerSec);
    return static_cast<int>(names_.size()) - 1;
  }
  void route(int from, int to, std::vector<int> links, double latency, int issueLink = -1, double issueSec = 0) {
    paths_[{from, to}] = algo::Path{std::move(links), latency, issueLink, issueSec};
  }

  int linkCount() const override { return static_cast<int>(names_.size()); }
  double linkBytesPerSec(int link) const override { return bandwidth_.at(link); }
  const std::string& linkName(int link) const override { return names_.at(link); }
  algo::Path path(int from, int to) const override { return paths_.at({from, to}); }
  double reduceBytesPerSec() const override { return reduceRate; }
  double launchSec() const override { return launch; }
  bool channelsShareRank() const override { return serialChannels; }

  double reduceRate = std::numeric_limits<double>::infinity();
  double launch = 0;
  bool serialChannels = false;

 private:
  std::vector<std::string> names_;
  std::vector<double> bandwidth_;
  std::map<std::pair<int, int>, algo::Path> paths_;
};

}  // namespace trnccl::test
