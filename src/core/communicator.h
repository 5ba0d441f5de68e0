// A communicator: one rank's membership of a group of ranks. It builds its
// parts and passes each operation through its turn; the parts do the rest:
//   IssueOrder  numbers operations in program order (the issuing thread),
//   WorkRunner  runs a turn's work (tuner, schedules, executor),
//   CommHealth  says whether it may run at all (abort, revoke, failure).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/futex_event.h"
#include "core/bootstrap.h"
#include "core/comm_health.h"
#include "core/config.h"
#include "core/creation_group.h"
#include "core/diagnostics.h"
#include "core/host_census.h"
#include "core/issue_order.h"
#include "core/placement.h"
#include "core/status_registry.h"
#include "core/status_responder.h"
#include "core/transport_set.h"
#include "core/work.h"
#include "core/work_runner.h"
#include "runtime/registered_buffers.h"
#include "runtime/stream.h"

namespace trnccl::core {

class Communicator {
 public:
  // Collective over the nranks ranks sharing `id`. `inheritedCores`: for a
  // split, each new rank's NeuronCore in the parent's topology. `group`: the
  // ranks trncclCommInitAll creates with this one (they abort this creation
  // if one of them fails).
  Communicator(const trncclUniqueId& id, int nranks, int rank, Config config,
               const std::vector<int>* inheritedCores = nullptr, CreationGroup* group = nullptr);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }
  int size() const { return nranks_; }
  const Config& config() const { return config_; }
  Bootstrap& bootstrap() { return *bootstrap_; }
  const Placement& placement() const { return *placement_; }
  const TransportSet& transports() const { return *transports_; }
  IssueOrder& order() { return order_; }
  const WorkRunner& runner() const { return *runner_; }
  const CommHealth& health() const { return health_; }

  // Takes the next turn and returns the closure that runs `work` in it,
  // wherever it is called. It throws the work's error, which also becomes
  // the asynchronous error.
  std::function<void()> prepare(Work work);
  // Takes the next turn and runs one collective in it, in this thread.
  void runNow(const CollectiveCall& call);
  // Blocks until every operation prepared so far has run or given up.
  void drain();
  // trncclProbe: the rank whose next point-to-point message has arrived (or
  // begun to) with no receive issued for it, or -1. Runs in the next turn;
  // peers are tried round-robin from the one after the last found.
  int probe();
  // trncclCommRegister / Deregister. A buffer in trncclMemAlloc memory is
  // also handed to the transports (in the next turn), which may let peers
  // read it in place. Deregister: false if `handle` is no live registration.
  void* registerBuffer(const void* buff, size_t size);
  bool deregisterBuffer(const void* handle);

  // trncclCommSuspend / Resume: while suspended, operations are refused;
  // `freeMemory` also frees what operations allocate (back on first use).
  void suspend(bool freeMemory);
  void resume() { health_.resume(); }
  void abort();
  // trncclCommRevoke: every running and queued operation gives up with
  // trncclRemoteError, without the peers' help; returns once none is left
  // (or throws Timeout). The bootstrap stays usable (for a shrink).
  void revoke();

  // What trnccl-top shows of this rank (core/comm_status.cc); any thread.
  nlohmann::json describeStatus();

 private:
  // Runs `body` in `ticket`'s turn; a failure becomes the async error.
  template <class Body>
  void inTurn(uint64_t ticket, Body&& body);
  // After a failure or a revoke: closes the transports, so the peers waiting
  // for this rank fail at once (as if it had exited) and stop waiting in turn.
  void leave();
  // Shared memory within an instance, the network between instances. Every
  // rank decides from the same placement, so all call the same (collective)
  // factories.
  void connectTransports(const trncclUniqueId& id, const HostCensus& census);
  void logReady(int ranksHere, int coresHere, bool oversubscribed) const;

  int rank_, nranks_;
  Config config_;
  CommHealth health_;
  // In the creation group while the constructor runs: left at its end, or
  // when a failed construction unwinds, before the abort signal goes.
  struct GroupMembership {
    CreationGroup* group;
    std::atomic<bool>* flag;
    void leave() {
      if (group) group->leave(flag);
      group = nullptr;
    }
    ~GroupMembership() { leave(); }
  } membership_;
  std::unique_ptr<Bootstrap> bootstrap_;
  std::unique_ptr<Placement> placement_;      // set once the ranks' hosts are known
  std::unique_ptr<TransportSet> transports_;  // set once the ranks' instances are known
  IssueOrder order_;
  runtime::RegisteredBuffers registered_;
  runtime::TurnTaker turns_;
  int probeFrom_ = 0;  // the peer probe() tries first

  std::atomic<int> pending_{0};  // prepared closures not yet destroyed
  FutexEvent pendingChanged_;
  std::atomic<int> running_{0};  // operations in their turn now
  std::mutex leaveMutex_;        // a revoke and a failing operation may both leave

  std::unique_ptr<WorkRunner> runner_;
  // Made first in the constructor, destroyed first: its records point to
  // algorithm names the runner's tuner owns.
  std::unique_ptr<Diagnostics> diagnostics_;
  // Made last, destroyed first: they describe the parts above.
  std::unique_ptr<StatusRegistry::Entry> statusEntry_;
  std::unique_ptr<StatusResponder> statusResponder_;
};

}  // namespace trnccl::core
