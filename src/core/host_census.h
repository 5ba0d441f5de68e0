// Which ranks share a host: every rank's host identity and usable cores,
// swapped over the bootstrap, numbered into hosts. Ranks share memory only
// on one host, and the ranks of a host compete for its cores.
#pragma once

#include <sched.h>

#include <vector>

#include "transports/transport.h"

namespace trnccl::core {

// Ranks share memory only if they run on the same machine (same boot); ranks
// in different network namespaces (containers, or the tests' emulated hosts)
// are treated as different hosts, as their addresses are.
struct HostIdentity {
  char name[64] = {};
  char boot[40] = {};
  char network[40] = {};
  bool operator==(const HostIdentity& o) const;
  static HostIdentity ofThisProcess();
};

struct RankPlacement {
  HostIdentity host;
  cpu_set_t cores;  // the cores the rank may run on
  static RankPlacement ofThisProcess();
};

class HostCensus {
 public:
  // Collective: every rank's placement, over the bootstrap.
  static HostCensus take(transport::OutOfBand& oob);
  // From every rank's placement, indexed by rank, as seen by `rank`.
  HostCensus(const std::vector<RankPlacement>& byRank, int rank);

  // Per rank: its host, hosts numbered in order of their first rank.
  const std::vector<int>& hostOf() const { return hostOf_; }
  int hostCount() const { return hostCount_; }
  // This rank's host: how many ranks run on it, and how many cores they
  // share (the union of their masks: mpirun binds each rank to its own core).
  int ranksHere() const { return ranksHere_; }
  int coresHere() const { return coresHere_; }
  bool oversubscribed() const { return ranksHere_ > coresHere_; }
  // The smallest share of a core any rank of the communicator has on its
  // host (1: a core each; 0.25: 8 ranks on 2 cores), the same on every rank,
  // so the tuner prices the host alike everywhere.
  double coreShare() const { return coreShare_; }

 private:
  std::vector<int> hostOf_;
  int hostCount_ = 0;
  int ranksHere_ = 0;
  int coresHere_ = 0;
  double coreShare_ = 1;
};

}  // namespace trnccl::core
