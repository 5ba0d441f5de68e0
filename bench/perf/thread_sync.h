#pragma once

#include <barrier>
#include <cstdint>
#include <vector>

#include "rank_sync.h"

namespace trnccl::perf {

// What the rank threads of one process share to agree on results.
class ThreadTeam {
 public:
  explicit ThreadTeam(int nranks);

 private:
  friend class ThreadSync;
  std::barrier<> barrier_;
  std::vector<double> doubles_;  // one slot per rank
  std::vector<uint64_t> counts_;
};

class ThreadSync final : public RankSync {
 public:
  ThreadSync(ThreadTeam& team, int rank) : team_(team), rank_(rank) {}
  void barrier() override;
  double max(double value) override;
  uint64_t sum(uint64_t value) override;

 private:
  ThreadTeam& team_;
  int rank_;
};

}  // namespace trnccl::perf
