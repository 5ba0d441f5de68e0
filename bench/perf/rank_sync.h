#pragma once

#include <cstdint>

namespace trnccl::perf {

// How the benchmark's ranks agree on timings and error counts, outside
// trnccl: MPI under mpirun, a barrier between threads otherwise. Every rank
// calls the same functions in the same order.
class RankSync {
 public:
  virtual ~RankSync() = default;
  virtual void barrier() = 0;
  virtual double max(double value) = 0;
  virtual uint64_t sum(uint64_t value) = 0;
};

}  // namespace trnccl::perf
