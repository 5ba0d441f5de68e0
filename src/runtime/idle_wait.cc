#include "runtime/idle_wait.h"

#include <sched.h>

#include "base/error.h"

namespace trnccl::runtime {

std::string describeCall(const Call& call, int rank) {
  return std::string(call.what) + " #" + std::to_string(call.sequence) + " on rank " + std::to_string(rank);
}

// A rank with a core of its own polls between single pauses: a pause is
// 50-70 ns on some hosts, so Backoff's usual 8 per round would add a quarter
// of a microsecond, on average, to noticing a small message. The spin lasts
// as long as the usual one.
IdleWait::IdleWait(const ExecutorContext& ctx, const Call& call, const char* algorithm)
    : ctx_(ctx),
      call_(call),
      algorithm_(algorithm),
      backoff_(ctx.oversubscribed ? Backoff(true) : Backoff(8 * Backoff::kSpins, 1, Backoff::kYields)) {}

void IdleWait::checkStop() const {
  if (const trncclResult_t stop = ctx_.stop ? ctx_.stop->load(std::memory_order_relaxed) : trncclSuccess)
    throwError(stop, describeCall(call_, ctx_.rank) + (stop == trncclRemoteError ? ": the communicator was revoked"
                                                                                 : ": the communicator was aborted"));
}

void IdleWait::waiting(const WaitTarget& target) const {
  if (ctx_.recorder) ctx_.recorder->waiting(target.peer, static_cast<int64_t>(target.step), target.receiving);
}

void IdleWait::resume() {
  idleSince_ = {};
  if (ctx_.recorder) ctx_.recorder->resumed();
}

void IdleWait::timedOut(const std::string& what) const {
  throwError(trncclTimeout, describeCall(call_, ctx_.rank) + " (" + algorithm_ + "): rank " +
                                std::to_string(ctx_.rank) + " waited " + std::to_string(ctx_.timeout.count()) + " ms " +
                                what);
}

void IdleWait::pause() {
  backoff_.pause([&](std::chrono::microseconds maxWait) {
    if (ctx_.transports.size() == 1)
      ctx_.transports[0]->wait(maxWait);
    else
      sched_yield();
  });
}

}  // namespace trnccl::runtime
