#include "core/communicator.h"

#include <algorithm>
#include <string_view>
#include <thread>

#include "algorithms/mesh.h"
#include "base/asymmetric_fence.h"
#include "base/datatype.h"
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

// Every rank refuses a call no allowed algorithm can run, before anything is
// sent, so refusing it leaves the ranks in step and the communicator usable.
struct RefusedCall : Error {
  explicit RefusedCall(const Error& e) : Error(e) {}
};

}  // namespace

Communicator::Communicator(const trncclUniqueId& id, int nranks, int rank, Config config,
                           const std::vector<int>* inheritedCores, CreationGroup* group)
    : rank_(rank),
      nranks_(nranks),
      config_(std::move(config)),
      membership_{group, &abortFlag_},
      device_(device::trainium()),
      executor_(context_),
      oneShot_(context_),
      callChecker_(executor_, rank, nranks),
      sendTags_(nranks, 0),
      recvTags_(nranks, 0) {
  if (group) group->join(&abortFlag_);
  diagnostics_ = std::make_unique<Diagnostics>(config_, jobKey(id, nranks), rank, nranks);
  bootstrap_ = Bootstrap::connect(id, rank, nranks, config_.timeout, &abortFlag_);

  const HostCensus census = HostCensus::take(*bootstrap_);
  placement_ = std::make_unique<Placement>(config_, nranks, inheritedCores, census.hostOf());
  tuner_ = std::make_unique<algo::Tuner>(
      algo::AlgorithmFilter(config_.algorithm, config_.algorithmSource, algo::Tuner::algorithmNames()),
      placement_->network(), &placement_->layout());
  connectTransports(id, census.hostCount());

  context_.rank = rank;
  context_.nranks = nranks;
  context_.device = &device_;
  context_.sliceBytes = config_.sliceBytes;
  context_.window = config_.window;
  context_.oversubscribed = census.oversubscribed();
  context_.timeout = config_.timeout;
  context_.stop = &stop_;
  context_.rounding =
      config_.stochasticRounding ? device::kernels::Rounding::Stochastic : device::kernels::Rounding::NearestEven;
  context_.seed = config_.seed;
  context_.recorder = diagnostics_->recorder();
  context_.trace = diagnostics_->trace();
  const std::string transportNames = transportDescription();
  TRNCCL_INFO(
      "comm %s rank %d/%d ready: transport %s, kernels %s, slice %zu B, window %d, timeout %lld ms, "
      "%d ranks on %d cores of this host%s",
      config_.name.empty() ? "-" : config_.name.c_str(), rank, nranks, transportNames.c_str(),
      device::kernels::isaName(device::kernels::selectedIsa()), config_.sliceBytes, config_.window,
      static_cast<long long>(config_.timeout.count()), census.ranksHere(), census.coresHere(),
      context_.oversubscribed ? " (oversubscribed: waits yield)" : "");
  if (log::enabled(log::Level::Info)) {
    TRNCCL_INFO(
        "comm %s rank %d: %s; %s%s", config_.name.empty() ? "-" : config_.name.c_str(), rank,
        placement_->describe(rank).c_str(), topo::discoverHost().describe().c_str(),
        config_.emulateLinks ? (", links emulated, time x " + std::to_string(config_.emulateScale)).c_str() : "");
    if (rank == 0)
      for (algo::Collective c :
           {algo::Collective::AllReduce, algo::Collective::AllGather, algo::Collective::ReduceScatter})
        TRNCCL_INFO("comm %s tuner: %s", config_.name.empty() ? "-" : config_.name.c_str(),
                    tuner_->describe(c, trncclFloat32, nranks).c_str());
  }
  membership_.leave();  // created: a sibling's failure no longer concerns it
}

algo::CollectiveArgs Communicator::argsFor(algo::Collective collective, size_t count, trncclDataType_t type) const {
  algo::CollectiveArgs a;
  a.collective = collective;
  a.rank = rank_;
  a.nranks = nranks_;
  a.count = count;
  a.type = type;
  a.layout = &placement_->layout();
  return a;
}

AlgorithmInfo Communicator::algorithmFor(algo::Collective collective, size_t count, trncclDataType_t type) const {
  const algo::CollectiveArgs a = argsFor(collective, count, type);
  const algo::Algorithm& chosen = tuner_->choose(a);
  const double scale = config_.emulateLinks ? config_.emulateScale : 1;
  return AlgorithmInfo{chosen.name(), tuner_->predict(chosen, a).seconds * scale};
}

void Communicator::connectTransports(const trncclUniqueId& id, int hostCount) {
  if (config_.emulateLinks && placement_->topology() == nullptr)
    throwError(trncclInvalidUsage, "TRNCCL_EMULATE_LINKS=1 needs a topology to emulate: set TRNCCL_TOPO");
  transport::Options options;
  options.rank = rank_;
  options.nranks = nranks_;
  options.oob = bootstrap_.get();
  options.timeout = config_.timeout;
  options.jobKey = jobKey(id, nranks_);
  if (config_.emulateLinks && nranks_ > 1) options.emulation = placement_->emulation(rank_, config_.emulateScale);
  const transport::TransportEntry& local = instanceTransport();
  const transport::TransportEntry& network =
      nranks_ > 1 && placement_->layout().instances() > 1
          ? networkTransport(config_.transport, config_.transportSource, hostCount)
          : local;
  transports_ = std::make_unique<TransportSet>(options, placement_->layout().instanceOf, local, network);
  context_.transportOf = transports_->byPeer();
  context_.transports = transports_->all();
}

std::string Communicator::transportDescription() const { return transports_->description(); }

transport::MemoryUse Communicator::memoryUse() const {
  transport::MemoryUse total = transports_->memoryUse();
  total.hostBytes += executor_.stagingBytes() + scratch_.capacity();
  return total;
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
  if (!aborted()) diagnostics_->dump("destroy");
}

uint32_t Communicator::nextP2PTag(int peer, bool send) { return (send ? sendTags_ : recvTags_).at(peer)++; }

int Communicator::probe() {
  int found = -1;
  if (nranks_ == 1) return found;
  inTurn(turns_.take(), [&] {
    for (transport::Transport* transport : transports_->all()) transport->progress();
    const std::vector<transport::Transport*>& byPeer = transports_->byPeer();
    for (int i = 0; i < nranks_ && found < 0; ++i) {
      const int peer = (probeFrom_ + i) % nranks_;
      if (peer == rank_) continue;
      const uint64_t tag = runtime::messageTag(runtime::kP2PTagBase, recvTags_.at(peer), 0);
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
  if (*shared != nullptr && !aborted() && asyncError() == trncclSuccess) {
    inTurn(turns_.take(), [&] {
      for (transport::Transport* transport : transports_->all()) transport->deregisterRegion(*shared);
    });
  }
  return true;
}

void Communicator::suspend(bool freeMemory) {
  if (suspended_.exchange(true)) throwError(trncclInvalidUsage, "the communicator is suspended already");
  drain();
  if (!freeMemory) return;
  executor_.releaseBuffers();
  std::vector<char>().swap(scratch_);
  schedules_.clear();
}

void Communicator::resume() {
  if (!suspended_.exchange(false)) throwError(trncclInvalidUsage, "the communicator is not suspended");
}

void Communicator::setGrowId(const trncclUniqueId& id) {
  std::lock_guard<std::mutex> lock(growMutex_);
  growId_ = id;
}

bool Communicator::takeGrowId(trncclUniqueId* id) {
  std::lock_guard<std::mutex> lock(growMutex_);
  if (!growId_) return false;
  *id = *growId_;
  growId_.reset();
  return true;
}

void Communicator::unissue(const Work& work) {
  sequence_ -= work.collectives.size();
  for (const P2PCall& call : work.p2p) --(call.op.send ? sendTags_ : recvTags_).at(call.op.peer);
}

double Communicator::predictSeconds(const Work& work) const {
  double seconds = 0;
  for (const CollectiveCall& call : work.collectives) seconds += tuner_->predict(choose(call.args), call.args).seconds;
  if (!work.p2p.empty()) {
    std::vector<algo::P2POp> ops;
    for (const P2PCall& call : work.p2p) ops.push_back(call.op);
    seconds += algo::predictP2P(rank_, nranks_, ops, placement_->network()).seconds;
  }
  return seconds * (config_.emulateLinks ? config_.emulateScale : 1);
}

std::function<void()> Communicator::prepare(Work work) {
  const uint64_t ticket = turns_.take();
  pending_.fetch_add(1);
  // Decrements `pending_` when the closure is gone, whether or not it ran.
  auto guard = std::shared_ptr<void>(nullptr, [this](void*) {
    pending_.fetch_sub(1);
    pendingChanged_.notify();
  });
  return [this, ticket, guard, work = std::move(work)] { inTurn(ticket, [&] { run(work); }); };
}

void Communicator::runNow(const CollectiveCall& call) {
  inTurn(turns_.take(), [&] { runCollective(call); });
}

template <class Body>
void Communicator::inTurn(uint64_t ticket, Body&& body) {
  if (!turns_.waitTurn(ticket, [&] { return aborted() || asyncError() != trncclSuccess; })) {
    checkUsable();  // throws: giving up means aborted or failed
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
  checkUsable();
  try {
    body();
  } catch (const RefusedCall&) {
    throw;
  } catch (const Error& e) {
    fail(e.code(), e.what());
    if (!aborted()) diagnostics_->dumpOnFailure(e.code());  // an abort dumped already
    leave();
    throw;
  }
}

void Communicator::drain() {
  pendingChanged_.wait([&] { return pending_.load() == 0; }, [] { return false; });
}

void Communicator::run(const Work& work) {
  for (const CollectiveCall& c : work.collectives) runCollective(c);
  if (!work.p2p.empty()) runP2P(work.p2p);
}

const algo::Algorithm& Communicator::choose(const algo::CollectiveArgs& args) const {
  try {
    return tuner_->choose(args);
  } catch (const Error& e) {
    throw RefusedCall(e);
  }
}

void Communicator::runCollective(const CollectiveCall& c) {
  algo::CollectiveArgs a = c.args;
  a.layout = &placement_->layout();
  Diagnostics::Op op(*diagnostics_, a, c.sequence);
  if (config_.checkCalls) {  // first: before a refusal could differ by rank
    op.begin();              // the check waits for every rank
    callChecker_.check(a, c.sequence);
  }
  const algo::Schedule& schedule = schedules_.find(a, [&] {
    // A step carries at most the slices the executor keeps in flight (the
    // same for every call of a type: not part of the cache's key).
    a.maxStepElements = static_cast<size_t>(config_.window) * (config_.sliceBytes / typeSize(a.type));
    const algo::Algorithm& algorithm = choose(a);
    TRNCCL_TRACE("rank %d: %s of %zu x %s uses %s", rank_, algo::collectiveName(a.collective), a.count,
                 typeName(a.type), algorithm.name());
    return algorithm.build(a);
  });
  const size_t scratchBytes = schedule.scratchElements * typeSize(a.type);
  if (scratch_.size() < scratchBytes) scratch_.resize(scratchBytes);

  void* const buffers[] = {nullptr, const_cast<void*>(c.send), c.recv, scratch_.data()};
  runtime::Call call;
  call.buffers = buffers;
  call.bufferCount = std::size(buffers);
  call.tagBase = runtime::collectiveTagBase(c.sequence);
  call.what = algo::collectiveName(a.collective);
  call.sequence = c.sequence;
  if (c.preMul) call.preMulScalar = c.preMul->address();
  if (runsOneShot(schedule, c)) {
    oneShot_.post(schedule, call);
    op.running(schedule.algorithm);  // while this rank's block travels
    oneShot_.complete(schedule, call);
  } else {
    op.running(schedule.algorithm);
    emulateLaunch(schedule);
    executor_.run(schedule, call);
  }
  op.succeeded();
}

// A mesh all-reduce runs one-shot over the block board when it fits one. Not
// with emulated links, whose pacing the FIFOs' messages carry, nor for a
// PreMulSum, which scales the input as it leaves the send buffer.
bool Communicator::runsOneShot(const algo::Schedule& schedule, const CollectiveCall& c) const {
  return schedule.collective == algo::Collective::AllReduce &&
         std::string_view(schedule.algorithm) == algo::Mesh::kName && !c.preMul && !config_.emulateLinks &&
         oneShot_.fits(schedule);
}

// The modelled machine's launch of a collective that moves data, paced as
// its links are: the cost model charges it once per call. An abort cuts it
// short (the executor then reports it).
void Communicator::emulateLaunch(const algo::Schedule& schedule) const {
  if (!config_.emulateLinks || nranks_ == 1 || schedule.stepCount() == 0) return;
  using Clock = std::chrono::steady_clock;
  const double seconds = placement_->topology()->engine.launchSec * config_.emulateScale;
  const Clock::time_point until =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  while (!aborted() && Clock::now() < until)
    std::this_thread::sleep_for(std::min<Clock::duration>(until - Clock::now(), std::chrono::milliseconds(10)));
}

void Communicator::runP2P(const std::vector<P2PCall>& calls) {
  std::vector<algo::P2POp> ops;
  std::vector<void*> buffers = {nullptr, nullptr, nullptr, nullptr};
  // A send whose buffer a receive of the same group overwrites (nccl-tests'
  // in-place sendrecv) goes out from a copy taken before anything arrives.
  std::vector<std::vector<char>> copies;
  auto overwritten = [&](const P2PCall& send) {
    const char* s = static_cast<const char*>(send.buffer);
    for (const P2PCall& c : calls) {
      const char* r = static_cast<const char*>(c.buffer);
      if (!c.op.send && r < s + send.op.bytes && s < r + c.op.bytes) return true;
    }
    return false;
  };
  for (const P2PCall& c : calls) {
    ops.push_back(c.op);
    void* buffer = c.buffer;
    if (c.op.send && overwritten(c)) {
      const char* data = static_cast<const char*>(c.buffer);
      buffer = copies.emplace_back(data, data + c.op.bytes).data();
    }
    buffers.push_back(buffer);
  }
  runtime::Call call;
  call.buffers = buffers.data();
  call.bufferCount = buffers.size();
  call.tagBase = runtime::kP2PTagBase;
  call.what = "send/recv group";
  runtime::OpInfo info;
  info.collective = call.what;
  info.count = ops.size();
  Diagnostics::Op op(*diagnostics_, info);
  op.running("p2p");
  executor_.run(algo::buildP2P(rank_, nranks_, ops), call);
  op.succeeded();
}

void Communicator::abort() {
  abortFlag_ = true;
  stop_ = trncclInvalidUsage;
  diagnostics_->dump("abort");  // while a blocked call still shows what it waits for
  transports_->interrupt();
}

void Communicator::revoke() {
  fail(trncclRemoteError, "the communicator was revoked (trncclCommRevoke)");  // queued work gives up its turn
  trncclResult_t running = trncclSuccess;
  stop_.compare_exchange_strong(running, trncclRemoteError);  // an abort stays an abort
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
  context_.transportOf.assign(context_.transportOf.size(), nullptr);
  context_.transports.clear();
  transports_->close();
}

void Communicator::fail(trncclResult_t code, const std::string& message) {
  std::lock_guard<std::mutex> lock(errorMutex_);
  if (asyncError_.load(std::memory_order_relaxed) != trncclSuccess) return;
  asyncMessage_ = message;
  asyncError_.store(code, std::memory_order_release);
}

trncclResult_t Communicator::asyncError() const { return asyncError_.load(std::memory_order_acquire); }

void Communicator::checkUsable() const {
  if (aborted()) throwError(trncclInvalidUsage, "the communicator was aborted");
  if (revoked()) throwError(trncclRemoteError, "the communicator was revoked (trncclCommRevoke): shrink or destroy it");
  if (suspended_)
    throwError(trncclInvalidUsage, "the communicator is suspended (trncclCommSuspend): call trncclCommResume first");
  const trncclResult_t failed = asyncError();
  if (failed == trncclSuccess) return;
  std::lock_guard<std::mutex> lock(errorMutex_);
  throwError(failed, "the communicator failed earlier (" + asyncMessage_ + "); destroy or abort it");
}

}  // namespace trnccl::core
