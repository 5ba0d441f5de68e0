#include "core/host_census.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>

namespace trnccl::core {
namespace {

// The cores this process may run on.
cpu_set_t usableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    CPU_ZERO(&set);
    for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN) && c < CPU_SETSIZE; ++c) CPU_SET(c, &set);
  }
  return set;
}

}  // namespace

bool HostIdentity::operator==(const HostIdentity& o) const { return std::memcmp(this, &o, sizeof(*this)) == 0; }

HostIdentity HostIdentity::ofThisProcess() {
  HostIdentity id;
  gethostname(id.name, sizeof(id.name) - 1);
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string boot;
  std::getline(in, boot);
  std::strncpy(id.boot, boot.c_str(), sizeof(id.boot) - 1);
  if (readlink("/proc/self/ns/net", id.network, sizeof(id.network) - 1) < 0) id.network[0] = 0;
  return id;
}

RankPlacement RankPlacement::ofThisProcess() { return RankPlacement{HostIdentity::ofThisProcess(), usableCores()}; }

HostCensus HostCensus::take(transport::OutOfBand& oob) {
  std::vector<RankPlacement> byRank(oob.size());
  byRank[oob.rank()] = RankPlacement::ofThisProcess();
  oob.allGather(byRank.data(), sizeof(RankPlacement));
  return HostCensus(byRank, oob.rank());
}

HostCensus::HostCensus(const std::vector<RankPlacement>& byRank, int rank) : hostOf_(byRank.size()) {
  std::vector<HostIdentity> hosts;
  std::vector<cpu_set_t> coresOf;  // per host, the union of its ranks' cores
  std::vector<int> ranksOf;
  for (size_t r = 0; r < byRank.size(); ++r) {
    const auto known = std::find(hosts.begin(), hosts.end(), byRank[r].host);
    hostOf_[r] = static_cast<int>(known - hosts.begin());
    if (known == hosts.end()) {
      hosts.push_back(byRank[r].host);
      coresOf.emplace_back();
      CPU_ZERO(&coresOf.back());
      ranksOf.push_back(0);
    }
    CPU_OR(&coresOf[hostOf_[r]], &coresOf[hostOf_[r]], &byRank[r].cores);
    ++ranksOf[hostOf_[r]];
  }
  hostCount_ = static_cast<int>(hosts.size());
  ranksHere_ = ranksOf[hostOf_[rank]];
  coresHere_ = CPU_COUNT(&coresOf[hostOf_[rank]]);
  for (int h = 0; h < hostCount_; ++h)
    coreShare_ = std::min(coreShare_, static_cast<double>(CPU_COUNT(&coresOf[h])) / ranksOf[h]);
}

}  // namespace trnccl::core
