// A communicator: one rank's membership of a group of ranks, and everything it
// owns to run collectives among them: the bootstrap, the transports, the
// simulated device, the tuner, staging buffers, and the bookkeeping that keeps
// every rank's operations in the same order.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/p2p.h"
#include "algorithms/tuner.h"
#include "base/futex_event.h"
#include "core/bootstrap.h"
#include "core/call_checker.h"
#include "core/config.h"
#include "core/creation_group.h"
#include "core/diagnostics.h"
#include "core/placement.h"
#include "core/schedule_cache.h"
#include "core/transport_set.h"
#include "device/device.h"
#include "runtime/executor.h"
#include "runtime/one_shot_allreduce.h"
#include "runtime/registered_buffers.h"
#include "runtime/stream.h"
#include "transports/transport.h"

namespace trnccl::core {

// A PreMulSum's scalar (trncclRedOpCreatePreMulSum): its value, copied when
// the call was issued, or where to read it when the collective runs.
struct PreMulScalar {
  const void* pointer = nullptr;  // trncclScalarDevice; null: `value` holds it
  std::array<std::byte, 8> value{};
  const void* address() const { return pointer != nullptr ? pointer : value.data(); }
};

struct CollectiveCall {
  algo::CollectiveArgs args;  // a PreMulSum runs as args.op = trncclSum with preMul set
  const void* send = nullptr;
  void* recv = nullptr;
  uint64_t sequence = 0;
  std::optional<PreMulScalar> preMul;
};

struct P2PCall {
  algo::P2POp op;
  void* buffer = nullptr;
};

// What one turn of a communicator runs: collectives in call order, then the
// fused point-to-point operations of a group.
struct Work {
  std::vector<CollectiveCall> collectives;
  std::vector<P2PCall> p2p;
};

// What the tuner runs for a call, and its predicted time as this run would
// measure it.
struct AlgorithmInfo {
  std::string name;
  double predictedSeconds = 0;
};

class Communicator {
 public:
  // Collective over the nranks ranks sharing `id`. `inheritedCores`: for a
  // split, each new rank's NeuronCore in the parent's topology.
  // `group`: the ranks trncclCommInitAll creates with this one (they abort
  // this creation if one of them fails).
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
  // The user buffers registered with trncclCommRegister.
  // trncclCommRegister: returns the handle. A buffer in trncclMemAlloc
  // memory is also handed to the transports (in the next turn), which may
  // let peers read it in place.
  void* registerBuffer(const void* buff, size_t size);
  // trncclCommDeregister: false if `handle` is no live registration.
  bool deregisterBuffer(const void* handle);
  // Thread-safe.
  AlgorithmInfo algorithmFor(algo::Collective collective, size_t count, trncclDataType_t type) const;
  // What carries the bytes: "shm", "shm + ofi (tcp;ofi_rxm, 1 rail)"; "none" for one rank.
  std::string transportDescription() const;
  // What this rank holds now (call between operations: after drain()).
  transport::MemoryUse memoryUse() const;

  // trncclCommSuspend / Resume: while suspended, operations are refused;
  // `freeMemory` also frees what operations allocate (back on first use).
  void suspend(bool freeMemory);
  void resume();

  // The id trncclCommGetUniqueId made for a grow, kept on rank 0 until
  // trncclCommGrow takes it.
  void setGrowId(const trncclUniqueId& id);
  bool takeGrowId(trncclUniqueId* id);

  // Program-order bookkeeping, called in the issuing thread.
  uint64_t nextSequence() { return sequence_++; }
  uint32_t nextP2PTag(int peer, bool send);
  // trncclProbe: the rank whose next point-to-point message to this one has
  // arrived (or begun to) with no receive issued for it, or -1 for none. Runs
  // in the next turn, after everything issued before it. Peers are tried
  // round-robin from the one after the last found, so no sender is starved.
  int probe();
  // Gives back the numbers and tags of `work`, the last operations issued and
  // never prepared (trncclGroupSimulateEnd).
  void unissue(const Work& work);
  // The predicted time of `work` in one turn, as algorithmFor() predicts each
  // collective; point-to-point operations priced with their peers' side.
  double predictSeconds(const Work& work) const;

  // Takes this communicator's next turn and returns the closure that runs
  // `work` in that turn, wherever it is called. It throws the work's error,
  // which also becomes the communicator's asynchronous error.
  std::function<void()> prepare(Work work);
  // Takes the next turn and runs one collective in it, in this thread: the
  // blocking path, with nothing to allocate.
  void runNow(const CollectiveCall& call);
  // Blocks until every operation prepared so far has run or given up.
  void drain();

  void abort();
  bool aborted() const { return abortFlag_.load(); }
  // trncclCommRevoke: every running and queued operation gives up with
  // trncclRemoteError, without the peers' help; returns once none is left
  // (or throws Timeout). The bootstrap stays usable (for a shrink).
  void revoke();
  bool revoked() const { return stop_.load() == trncclRemoteError; }
  // Throws if the communicator was aborted or a past operation failed.
  void checkUsable() const;
  trncclResult_t asyncError() const;

 private:
  void run(const Work& work);
  // Runs `body` in `ticket`'s turn; a failure becomes the async error.
  template <class Body>
  void inTurn(uint64_t ticket, Body&& body);
  void runCollective(const CollectiveCall& call);
  bool runsOneShot(const algo::Schedule& schedule, const CollectiveCall& call) const;
  void emulateLaunch(const algo::Schedule& schedule) const;
  // The tuner's choice; a refusal does not fail the communicator.
  const algo::Algorithm& choose(const algo::CollectiveArgs& args) const;
  void runP2P(const std::vector<P2PCall>& calls);
  void fail(trncclResult_t code, const std::string& message);
  // After a failure or a revoke: closes the transports, so the peers waiting
  // for this rank fail at once (as if it had exited) and stop waiting in turn.
  void leave();
  // Shared memory within an instance, the network between instances. Every
  // rank decides from the same placement, so all call the same (collective)
  // factories.
  void connectTransports(const trncclUniqueId& id, int hostCount);
  algo::CollectiveArgs argsFor(algo::Collective collective, size_t count, trncclDataType_t type) const;

  int rank_, nranks_;
  Config config_;
  std::atomic<bool> abortFlag_{false};               // also ends the bootstrap's waits
  std::atomic<trncclResult_t> stop_{trncclSuccess};  // the executor's: abort or revoke
  // In the creation group while the constructor runs: left at its end, or
  // when a failed construction unwinds, before abortFlag_ goes.
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
  std::unique_ptr<TransportSet> transports_;  // set once the ranks' instances are known
  device::Device device_;
  std::unique_ptr<Placement> placement_;  // set once the ranks' hosts are known
  std::unique_ptr<algo::Tuner> tuner_;
  runtime::RegisteredBuffers registered_;  // trncclCommRegister
  runtime::ExecutorContext context_;
  runtime::Executor executor_;
  runtime::OneShotAllReduce oneShot_;  // small mesh all-reduces over the shm block board
  CallChecker callChecker_;            // TRNCCL_CHECK
  runtime::TurnTaker turns_;
  std::vector<char> scratch_;
  ScheduleCache schedules_;  // touched only in turns

  std::atomic<bool> suspended_{false};
  std::mutex growMutex_;
  std::optional<trncclUniqueId> growId_;

  uint64_t sequence_ = 0;
  std::vector<uint32_t> sendTags_, recvTags_;
  int probeFrom_ = 0;  // the peer probe() tries first

  std::atomic<int> pending_{0};  // prepared closures not yet destroyed
  FutexEvent pendingChanged_;

  std::atomic<int> running_{0};    // operations in their turn now
  std::mutex leaveMutex_;          // a revoke and a failing operation may both leave
  mutable std::mutex errorMutex_;  // guards asyncMessage_; every call reads asyncError_ without it
  std::atomic<trncclResult_t> asyncError_{trncclSuccess};
  std::string asyncMessage_;  // set before asyncError_

  // Made first in the constructor, destroyed first: its records point to
  // algorithm names the tuner owns.
  std::unique_ptr<Diagnostics> diagnostics_;
};

}  // namespace trnccl::core
