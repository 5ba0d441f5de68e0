#include "core/comm_health.h"

#include "base/error.h"

namespace trnccl::core {

void CommHealth::markAborted() {
  aborted_ = true;
  stop_ = trncclInvalidUsage;
}

void CommHealth::markRevoked() {
  fail(trncclRemoteError, "the communicator was revoked (trncclCommRevoke)");  // queued work gives up its turn
  trncclResult_t running = trncclSuccess;
  stop_.compare_exchange_strong(running, trncclRemoteError);
}

void CommHealth::fail(trncclResult_t code, const std::string& message) {
  std::lock_guard<std::mutex> lock(errorMutex_);
  if (asyncError_.load(std::memory_order_relaxed) != trncclSuccess) return;
  asyncMessage_ = message;
  asyncError_.store(code, std::memory_order_release);
}

void CommHealth::suspend() {
  if (suspended_.exchange(true)) throwError(trncclInvalidUsage, "the communicator is suspended already");
}

void CommHealth::resume() {
  if (!suspended_.exchange(false)) throwError(trncclInvalidUsage, "the communicator is not suspended");
}

std::string CommHealth::asyncMessage() const {
  std::lock_guard<std::mutex> lock(errorMutex_);
  return asyncMessage_;
}

void CommHealth::checkUsable() const {
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
