#include "core/communicator.h"

#include <string_view>

#include "base/asymmetric_fence.h"
#include "base/error.h"
#include "base/fnv1a.h"
#include "base/log.h"
#include "core/host_census.h"
#include "device/kernels/kernels.h"
#include "device/memory.h"
#include "topology/host.h"

namespace trnccl::core {
namespace {

std::string jobKey(const trncclUniqueId& id, int nranks) {
  // The id's bytes are random enough (a port and a 128-bit secret) to name
  // this communicator's shared resources.
  const uint64_t h = fnv1a(std::string_view(id.internal, sizeof id.internal));
  char key[32];
  std::snprintf(key, sizeof(key), "%016llx-%d", static_cast<unsigned long long>(h), nranks);
  return key;
}

}  // namespace

Communicator::Communicator(const trncclUniqueId& id, int nranks, int rank, Config config,
                           const std::vector<int>* inheritedCores, CreationGroup* group)
    : rank_(rank),
      nranks_(nranks),
      config_(std::move(config)),
      membership_{group, health_.abortSignal()},
      order_(nranks) {
  if (group) group->join(health_.abortSignal());
  diagnostics_ = std::make_unique<Diagnostics>(config_, jobKey(id, nranks), rank, nranks);
  bootstrap_ = Bootstrap::connect(id, rank, nranks, config_.timeout, health_.abortSignal());

  const HostCensus census = HostCensus::take(*bootstrap_);
  placement_ = std::make_unique<Placement>(config_, nranks, inheritedCores, census.hostOf(), census.coreShare());
  connectTransports(id, census);
  runner_ = std::make_unique<WorkRunner>(RunnerParts{config_, *placement_, *transports_, *diagnostics_, health_}, rank,
                                         nranks, census.oversubscribed());
  logReady(census.ranksHere(), census.coresHere(), census.oversubscribed());
  statusEntry_ = std::make_unique<StatusRegistry::Entry>([this] { return describeStatus(); });
  statusResponder_ = std::make_unique<StatusResponder>(bootstrap_->takeRootLink());
  membership_.leave();  // created: a sibling's failure no longer concerns it
}

void Communicator::logReady(int ranksHere, int coresHere, bool oversubscribed) const {
  const char* name = config_.name.empty() ? "-" : config_.name.c_str();
  TRNCCL_INFO(
      "comm %s rank %d/%d ready: transport %s, kernels %s, slice %zu B, window %d, timeout %lld ms, "
      "%d ranks on %d cores of this host%s",
      name, rank_, nranks_, transports_->description().c_str(),
      device::kernels::isaName(device::kernels::selectedIsa()), config_.sliceBytes, config_.window,
      static_cast<long long>(config_.timeout.count()), ranksHere, coresHere,
      oversubscribed ? " (oversubscribed: waits yield)" : "");
  if (!log::enabled(log::Level::Info)) return;
  TRNCCL_INFO("comm %s rank %d: %s; %s%s", name, rank_, placement_->describe(rank_).c_str(),
              topo::discoverHost().describe().c_str(),
              config_.emulateLinks ? (", links emulated, time x " + std::to_string(config_.emulateScale)).c_str() : "");
  if (rank_ == 0)
    for (algo::Collective c :
         {algo::Collective::AllReduce, algo::Collective::AllGather, algo::Collective::ReduceScatter})
      TRNCCL_INFO("comm %s tuner: %s", name, runner_->tuner().describe(c, trncclFloat32, nranks_).c_str());
}

void Communicator::connectTransports(const trncclUniqueId& id, const HostCensus& census) {
  if (config_.emulateLinks && placement_->topology() == nullptr)
    throwError(trncclInvalidUsage, "TRNCCL_EMULATE_LINKS=1 needs a topology to emulate: set TRNCCL_TOPO");
  transport::Options options;
  options.rank = rank_;
  options.nranks = nranks_;
  options.oob = bootstrap_.get();
  options.timeout = config_.timeout;
  options.jobKey = jobKey(id, nranks_);
  options.oversubscribed = census.oversubscribed();
  if (config_.emulateLinks && nranks_ > 1) options.emulation = placement_->emulation(rank_, config_.emulateScale);
  const transport::TransportEntry& local = instanceTransport();
  const transport::TransportEntry& network =
      nranks_ > 1 && placement_->layout().instances() > 1
          ? networkTransport(config_.transport, config_.transportSource, census.hostCount())
          : local;
  transports_ = std::make_unique<TransportSet>(options, placement_->layout().instanceOf, local, network);
}

Communicator::~Communicator() {
  // Queued operations reference this communicator: let them finish (or, after
  // an abort, give up) before anything is torn down.
  const auto deadline = std::chrono::steady_clock::now() + config_.timeout;
  auto idle = [&] { return pending_.load() == 0; };
  if (!pendingChanged_.wait(idle, [&] { return std::chrono::steady_clock::now() > deadline; })) {
    TRNCCL_WARN("rank %d: destroying a communicator with %d operations still running; aborting them", rank_,
                pending_.load());
    abort();
    pendingChanged_.wait(idle, [] { return false; });
  }
  // A rank that leaves while others wait for it is named by its last call.
  if (!health_.aborted()) diagnostics_->dump("destroy");
}

int Communicator::probe() {
  int found = -1;
  if (nranks_ == 1) return found;
  inTurn(turns_.take(), [&] {
    for (transport::Transport* transport : transports_->all()) transport->progress();
    const std::vector<transport::Transport*>& byPeer = transports_->byPeer();
    for (int i = 0; i < nranks_ && found < 0; ++i) {
      const int peer = (probeFrom_ + i) % nranks_;
      if (peer == rank_) continue;
      const uint64_t tag = runtime::messageTag(runtime::kP2PTagBase, order_.pendingRecvTag(peer), 0);
      if (byPeer[peer]->arrived(peer, tag)) found = peer;
    }
  });
  if (found >= 0) probeFrom_ = (found + 1) % nranks_;
  return found;
}

void* Communicator::registerBuffer(const void* buff, size_t size) {
  const std::optional<device::Allocation> allocation = device::find(buff, size);
  if (allocation) {
    inTurn(turns_.take(), [&] {
      for (transport::Transport* transport : transports_->all())
        transport->registerRegion({allocation->base, allocation->size, allocation->fd});
    });
  }
  return registered_.add(buff, size, allocation ? allocation->base : nullptr);
}

bool Communicator::deregisterBuffer(const void* handle) {
  const std::optional<const void*> shared = registered_.remove(handle);
  if (!shared) return false;
  // A failed communicator's transports are gone with it, or about to be.
  if (*shared != nullptr && !health_.aborted() && health_.asyncError() == trncclSuccess) {
    inTurn(turns_.take(), [&] {
      for (transport::Transport* transport : transports_->all()) transport->deregisterRegion(*shared);
    });
  }
  return true;
}

void Communicator::suspend(bool freeMemory) {
  health_.suspend();
  drain();
  if (freeMemory) runner_->releaseMemory();
}

std::function<void()> Communicator::prepare(Work work) {
  const uint64_t ticket = turns_.take();
  pending_.fetch_add(1);
  // Decrements `pending_` when the closure is gone, whether or not it ran.
  auto guard = std::shared_ptr<void>(nullptr, [this](void*) {
    pending_.fetch_sub(1);
    pendingChanged_.notify();
  });
  return [this, ticket, guard, work = std::move(work)] { inTurn(ticket, [&] { runner_->run(work); }); };
}

void Communicator::runNow(const CollectiveCall& call) {
  inTurn(turns_.take(), [&] { runner_->runCollective(call); });
}

template <class Body>
void Communicator::inTurn(uint64_t ticket, Body&& body) {
  if (!turns_.waitTurn(ticket, [&] { return health_.aborted() || health_.asyncError() != trncclSuccess; })) {
    health_.checkUsable();  // throws: giving up means aborted or failed
    throwError(trncclInternalError, "lost the communicator's turn");
  }
  // A store, as turns never overlap; the light fence orders it before
  // checkUsable()'s loads, against revoke()'s heavy fence.
  running_.store(1, std::memory_order_relaxed);
  lightFence();
  struct FinishTurn {
    Communicator& comm;
    ~FinishTurn() {
      comm.running_.store(0, std::memory_order_release);  // turns never overlap: it was 1
      comm.turns_.finishTurn();                           // its fence follows the store above
      comm.pendingChanged_.notifyFenced();
    }
  } finish{*this};
  health_.checkUsable();
  try {
    body();
  } catch (const RefusedCall&) {
    throw;
  } catch (const Error& e) {
    health_.fail(e.code(), e.what());
    if (!health_.aborted()) diagnostics_->dumpOnFailure(e.code());  // an abort dumped already
    leave();
    throw;
  }
}

void Communicator::drain() {
  pendingChanged_.wait([&] { return pending_.load() == 0; }, [] { return false; });
}

void Communicator::abort() {
  health_.markAborted();
  diagnostics_->dump("abort");  // while a blocked call still shows what it waits for
  transports_->interrupt();
}

void Communicator::revoke() {
  health_.markRevoked();
  heavyFence();  // either a turn starting now sees the failure, or we see it running
  transports_->interrupt();
  const auto deadline = std::chrono::steady_clock::now() + config_.timeout;
  if (!pendingChanged_.wait([&] { return pending_.load() == 0 && running_.load() == 0; },
                            [&] { return std::chrono::steady_clock::now() > deadline; }))
    throwError(trncclTimeout, "trncclCommRevoke: operations still running after the timeout");
  leave();
}

void Communicator::leave() {
  std::lock_guard<std::mutex> lock(leaveMutex_);
  runner_->detachTransports();
  transports_->close();
}

}  // namespace trnccl::core
