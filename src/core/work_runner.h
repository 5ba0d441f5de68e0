// Runs a communicator's work inside its turn: picks each collective's
// algorithm, finds (or builds) its schedule and hands it to the executor, or
// to the one-shot path over the block board; a group's point-to-point
// operations run as one schedule. What the executor needs lives here.
#pragma once

#include <memory>
#include <vector>

#include "algorithms/tuner.h"
#include "base/error.h"
#include "core/call_checker.h"
#include "core/comm_health.h"
#include "core/config.h"
#include "core/diagnostics.h"
#include "core/placement.h"
#include "core/schedule_cache.h"
#include "core/transport_set.h"
#include "core/work.h"
#include "device/device.h"
#include "runtime/executor.h"
#include "runtime/one_shot_allreduce.h"

namespace trnccl::core {

// A call no allowed algorithm can run. Every rank refuses it before anything
// is sent, so refusing it leaves the ranks in step and the communicator usable.
struct RefusedCall : Error {
  explicit RefusedCall(const Error& e) : Error(e) {}
};

// The runner's view of its communicator: references that outlive it.
struct RunnerParts {
  const Config& config;
  const Placement& placement;
  TransportSet& transports;
  Diagnostics& diagnostics;
  const CommHealth& health;
};

class WorkRunner {
 public:
  WorkRunner(RunnerParts parts, int rank, int nranks, bool oversubscribed);

  // Throws the first error; RefusedCall for a call no algorithm may run.
  void run(const Work& work);
  void runCollective(const CollectiveCall& call);

  // What the tuner picks for a call and its predicted time. Thread-safe.
  AlgorithmInfo algorithmFor(algo::Collective collective, size_t count, trncclDataType_t type) const;
  // `work` in one turn; point-to-point operations priced with their peers' side.
  double predictSeconds(const Work& work) const;
  const algo::Tuner& tuner() const { return tuner_; }

  // What this rank holds now (call between operations).
  transport::MemoryUse memoryUse() const;
  // Frees what operations allocate (back on first use).
  void releaseMemory();
  // After a failure or a revoke: no call reaches a transport any more.
  void detachTransports();

 private:
  // The call's own algorithm (trncclCollConfig_t), or the tuner's.
  const algo::Algorithm& choose(const algo::CollectiveArgs& args, const CallChoice& choice = {}) const;
  algo::Schedule build(algo::CollectiveArgs args, const CallChoice& choice) const;
  bool runsOneShot(const algo::Schedule& schedule, const CollectiveCall& call) const;
  void emulateLaunch(const algo::Schedule& schedule) const;
  void runP2P(const std::vector<P2PCall>& calls);
  double emulationScale() const { return parts_.config.emulateLinks ? parts_.config.emulateScale : 1; }

  RunnerParts parts_;
  int rank_, nranks_;
  algo::Tuner tuner_;
  device::Device device_;
  runtime::ExecutorContext context_;
  runtime::Executor executor_;
  runtime::OneShotAllReduce oneShot_;  // small mesh all-reduces over the shm block board
  CallChecker callChecker_;            // TRNCCL_CHECK
  std::vector<char> scratch_;
  ScheduleCache schedules_;
};

}  // namespace trnccl::core
