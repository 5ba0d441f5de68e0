// Whether a communicator may still run operations, and if not, why: aborted
// (trncclCommAbort), revoked (trncclCommRevoke), suspended
// (trncclCommSuspend), or failed in an earlier operation, whose error is the
// communicator's asynchronous error. Thread-safe.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "trnccl/trnccl.h"

namespace trnccl::core {

class CommHealth {
 public:
  // Set by an abort; ends the bootstrap's waits, and a creation group sets
  // it to abort its other members.
  std::atomic<bool>* abortSignal() { return &aborted_; }
  // The executor's: every running call gives up with it unless trncclSuccess.
  const std::atomic<trncclResult_t>* stopSignal() const { return &stop_; }

  void markAborted();
  // Fails the communicator with trncclRemoteError and stops running calls
  // (an abort stays an abort).
  void markRevoked();
  // The first failure becomes the asynchronous error; later ones are dropped.
  void fail(trncclResult_t code, const std::string& message);
  // Throw trncclInvalidUsage when already in (or out of) that state.
  void suspend();
  void resume();

  bool aborted() const { return aborted_.load(); }
  bool revoked() const { return stop_.load() == trncclRemoteError; }
  trncclResult_t asyncError() const { return asyncError_.load(std::memory_order_acquire); }
  std::string asyncMessage() const;  // empty while asyncError() is trncclSuccess
  // Throws if the communicator may not run an operation now, saying why.
  void checkUsable() const;

 private:
  std::atomic<bool> aborted_{false};
  std::atomic<trncclResult_t> stop_{trncclSuccess};
  std::atomic<bool> suspended_{false};
  mutable std::mutex errorMutex_;  // guards asyncMessage_; every call reads asyncError_ without it
  std::atomic<trncclResult_t> asyncError_{trncclSuccess};
  std::string asyncMessage_;  // set before asyncError_
};

}  // namespace trnccl::core
