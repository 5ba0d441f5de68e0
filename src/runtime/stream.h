// A stream: an ordered queue of operations, executed one after the other by
// its own progress thread, so a call on a stream returns at once. The first
// failure is kept and returned by synchronize()/query(); later operations on
// the stream still run (each reports to its communicator).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "base/futex_event.h"
#include "trnccl/trnccl.h"

namespace trnccl::runtime {

class Stream {
 public:
  Stream();
  ~Stream();  // runs what is queued, then stops the thread
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  void enqueue(std::function<void()> work);
  // Waits until everything queued so far has run (each operation is bounded by
  // its communicator's timeout); returns (and clears) the first error.
  trncclResult_t synchronize(std::string* message);
  trncclResult_t query() const;  // trncclSuccess when idle, trncclInProgress otherwise

 private:
  void run();
  bool takeWork(std::function<void()>& work);

  mutable std::mutex mutex_;  // guards queue_ and the error
  std::deque<std::function<void()>> queue_;
  std::atomic<uint64_t> enqueued_{0};
  std::atomic<uint64_t> completed_{0};
  std::atomic<bool> stopping_{false};
  FutexEvent workArrived_, workDone_;
  trncclResult_t error_ = trncclSuccess;
  std::string errorMessage_;
  std::thread worker_;
};

// Gives each communicator's operations turns in the order they were issued,
// whichever thread or stream runs them: every rank then executes its
// operations in the same order, which is what keeps ranks matched.
class TurnTaker {
 public:
  uint64_t take() { return next_.fetch_add(1, std::memory_order_relaxed); }  // in program order
  // Blocks until it is `ticket`'s turn; false if `giveUp` says so first.
  template <class GiveUp>
  bool waitTurn(uint64_t ticket, GiveUp&& giveUp) {
    return changed_.wait([&] { return serving_.load(std::memory_order_acquire) == ticket; }, giveUp);
  }
  void finishTurn();

 private:
  std::atomic<uint64_t> next_{0};
  std::atomic<uint64_t> serving_{0};
  FutexEvent changed_;
};

}  // namespace trnccl::runtime
