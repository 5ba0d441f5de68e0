#include "thread_sync.h"

#include <algorithm>
#include <numeric>

namespace trnccl::perf {

ThreadTeam::ThreadTeam(int nranks) : barrier_(nranks), doubles_(nranks), counts_(nranks) {}

void ThreadSync::barrier() { team_.barrier_.arrive_and_wait(); }

// Each reduction publishes its slot, waits for all, reads, and waits again so
// that no rank overwrites a slot before every rank has read it.
double ThreadSync::max(double value) {
  team_.doubles_[rank_] = value;
  barrier();
  const double result = *std::max_element(team_.doubles_.begin(), team_.doubles_.end());
  barrier();
  return result;
}

uint64_t ThreadSync::sum(uint64_t value) {
  team_.counts_[rank_] = value;
  barrier();
  const uint64_t result = std::accumulate(team_.counts_.begin(), team_.counts_.end(), uint64_t{0});
  barrier();
  return result;
}

}  // namespace trnccl::perf
