#include "core/work_runner.h"

#include <algorithm>
#include <string_view>
#include <thread>

#include "algorithms/deterministic.h"
#include "algorithms/mesh.h"
#include "base/datatype.h"
#include "base/fnv1a.h"
#include "base/log.h"
#include "device/kernels/kernels.h"

namespace trnccl::core {
namespace {

// The same on ranks that made the same per-call choice (TRNCCL_CHECK
// compares it); 0 for none.
uint32_t choiceHash(const CallChoice& choice) {
  if (choice == CallChoice{}) return 0;
  const std::string text = std::string(choice.algorithm ? choice.algorithm->name() : "") + "/" +
                           std::to_string(choice.chunkElements) + "/" + (choice.deterministic ? "1" : "0");
  return static_cast<uint32_t>(fnv1a(text) | 1);
}

}  // namespace

WorkRunner::WorkRunner(RunnerParts parts, int rank, int nranks, bool oversubscribed)
    : parts_(parts),
      rank_(rank),
      nranks_(nranks),
      tuner_(algo::AlgorithmFilter(parts.config.algorithm, parts.config.algorithmSource, algo::Tuner::algorithmNames()),
             parts.placement.network(), &parts.placement.layout()),
      device_(device::trainium()),
      executor_(context_),
      oneShot_(context_),
      callChecker_(executor_, rank, nranks) {
  const Config& config = parts.config;
  context_.rank = rank;
  context_.nranks = nranks;
  context_.transportOf = parts.transports.byPeer();
  context_.transports = parts.transports.all();
  context_.device = &device_;
  context_.sliceBytes = config.sliceBytes;
  context_.window = config.window;
  context_.oversubscribed = oversubscribed;
  context_.timeout = config.timeout;
  context_.stop = parts.health.stopSignal();
  context_.rounding =
      config.stochasticRounding ? device::kernels::Rounding::Stochastic : device::kernels::Rounding::NearestEven;
  context_.seed = config.seed;
  context_.recorder = parts.diagnostics.recorder();
  context_.trace = parts.diagnostics.trace();
}

AlgorithmInfo WorkRunner::algorithmFor(algo::Collective collective, size_t count, trncclDataType_t type) const {
  algo::CollectiveArgs a;
  a.collective = collective;
  a.rank = rank_;
  a.nranks = nranks_;
  a.count = count;
  a.type = type;
  a.layout = &parts_.placement.layout();
  const algo::Algorithm& chosen = tuner_.choose(a);
  return AlgorithmInfo{chosen.name(), tuner_.predict(chosen, a).seconds * emulationScale()};
}

double WorkRunner::predictSeconds(const Work& work) const {
  double seconds = 0;
  for (const CollectiveCall& call : work.collectives)
    seconds += tuner_.predict(choose(call.args, call.choice), call.args).seconds;
  if (!work.p2p.empty()) {
    std::vector<algo::P2POp> ops;
    for (const P2PCall& call : work.p2p) ops.push_back(call.op);
    seconds += algo::predictP2P(rank_, nranks_, ops, parts_.placement.network()).seconds;
  }
  return seconds * emulationScale();
}

transport::MemoryUse WorkRunner::memoryUse() const {
  transport::MemoryUse total = parts_.transports.memoryUse();
  total.hostBytes += executor_.stagingBytes() + scratch_.capacity();
  return total;
}

void WorkRunner::releaseMemory() {
  executor_.releaseBuffers();
  std::vector<char>().swap(scratch_);
  schedules_.clear();
}

void WorkRunner::detachTransports() {
  context_.transportOf.assign(context_.transportOf.size(), nullptr);
  context_.transports.clear();
}

void WorkRunner::run(const Work& work) {
  for (const CollectiveCall& c : work.collectives) runCollective(c);
  if (!work.p2p.empty()) runP2P(work.p2p);
}

const algo::Algorithm& WorkRunner::choose(const algo::CollectiveArgs& args, const CallChoice& choice) const {
  try {
    if (choice.algorithm == nullptr) return tuner_.choose(args);
    // Checked when the call was issued; the same on every rank.
    if (const std::string why = choice.algorithm->whyUnsupported(args); !why.empty())
      throwError(trncclInvalidUsage, why);
    return *choice.algorithm;
  } catch (const Error& e) {
    throw RefusedCall(e);
  }
}

// The call's schedule: its algorithm's, or in deterministic mode the
// rank-order reduction with the algorithm's data movement around it.
algo::Schedule WorkRunner::build(algo::CollectiveArgs a, const CallChoice& choice) const {
  // A step carries at most the slices the executor keeps in flight (the
  // same for every call of a type unless the call asks for smaller chunks).
  const size_t most = static_cast<size_t>(context_.window) * (context_.sliceBytes / typeSize(a.type));
  a.maxStepElements = choice.chunkElements != 0 ? std::min(choice.chunkElements, most) : most;
  const algo::Algorithm& algorithm = choose(a, choice);
  const bool deterministic = choice.deterministic && algo::reduces(a.collective);
  TRNCCL_TRACE("rank %d: %s of %zu x %s uses %s%s", rank_, algo::collectiveName(a.collective), a.count,
               typeName(a.type), algorithm.name(), deterministic ? " (deterministic)" : "");
  return deterministic ? algo::deterministicSchedule(algorithm, a) : algorithm.build(a);
}

void WorkRunner::runCollective(const CollectiveCall& c) {
  algo::CollectiveArgs a = c.args;
  a.layout = &parts_.placement.layout();
  Diagnostics::Op op(parts_.diagnostics, a, c.sequence);
  if (parts_.config.checkCalls) {  // first: before a refusal could differ by rank
    op.begin();                    // the check waits for every rank
    callChecker_.check(a, c.sequence, choiceHash(c.choice));
  }
  const algo::Schedule& schedule = schedules_.find(a, c.choice, [&] { return build(a, c.choice); });
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
bool WorkRunner::runsOneShot(const algo::Schedule& schedule, const CollectiveCall& c) const {
  return schedule.collective == algo::Collective::AllReduce &&
         std::string_view(schedule.algorithm) == algo::Mesh::kName && !c.preMul && !parts_.config.emulateLinks &&
         oneShot_.fits(schedule);
}

// The modelled machine's launch of a collective that moves data, paced as
// its links are: the cost model charges it once per call. An abort cuts it
// short (the executor then reports it).
void WorkRunner::emulateLaunch(const algo::Schedule& schedule) const {
  if (!parts_.config.emulateLinks || nranks_ == 1 || schedule.stepCount() == 0) return;
  using Clock = std::chrono::steady_clock;
  const double seconds = parts_.placement.topology()->engine.launchSec * parts_.config.emulateScale;
  const Clock::time_point until =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  while (!parts_.health.aborted() && Clock::now() < until)
    std::this_thread::sleep_for(std::min<Clock::duration>(until - Clock::now(), std::chrono::milliseconds(10)));
}

void WorkRunner::runP2P(const std::vector<P2PCall>& calls) {
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
  Diagnostics::Op op(parts_.diagnostics, info);
  op.running("p2p");
  executor_.run(algo::buildP2P(rank_, nranks_, ops), call);
  op.succeeded();
}

}  // namespace trnccl::core
