#pragma once

#include "rank_sync.h"

namespace trnccl::perf {

// RankSync over MPI_COMM_WORLD, for runs started by mpirun.
class MpiSync final : public RankSync {
 public:
  void barrier() override;
  double max(double value) override;
  uint64_t sum(uint64_t value) override;
};

}  // namespace trnccl::perf
