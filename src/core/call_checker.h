// TRNCCL_CHECK on a communicator: before each collective the ranks swap
// their calls' fingerprints (core/call_check.h) in one mesh all-gather over
// the communicator's own executor and transports.
#pragma once

#include <cstdint>
#include <optional>

#include "algorithms/algorithm.h"
#include "runtime/executor.h"

namespace trnccl::core {

class CallChecker {
 public:
  CallChecker(runtime::Executor& executor, int rank, int nranks) : executor_(executor), rank_(rank), nranks_(nranks) {}

  // Collective: every rank checks its `sequence`th call. Throws InvalidUsage
  // on every rank, naming the ranks that differ, when the calls differ.
  // `choice`: a hash of the call's per-call configuration.
  void check(const algo::CollectiveArgs& args, uint64_t sequence, uint32_t choice = 0);

 private:
  runtime::Executor& executor_;
  int rank_, nranks_;
  std::optional<algo::Schedule> swap_;  // built on first use, for the first call's layout
};

}  // namespace trnccl::core
