// A stream: an ordered queue of operations, executed one after the other by
// its own progress thread, so a call on a stream returns at once. The first
// failure is kept and returned by synchronize()/query(); later operations on
// the stream still run (each reports to its communicator).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "trnccl/trnccl.h"

namespace trnccl::runtime {

class Stream {
 public:
  Stream();
  ~Stream();  // drains the queue, then stops the thread
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  void enqueue(std::function<void()> work);
  // Waits until everything queued so far has run; returns (and clears) the
  // first error and its message.
  trncclResult_t synchronize(std::string* message);
  trncclResult_t query() const;  // trncclSuccess when idle, trncclInProgress otherwise

 private:
  void run();

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  trncclResult_t error_ = trncclSuccess;
  std::string errorMessage_;
  std::thread worker_;
};

// Gives each communicator's operations turns in the order they were issued,
// whichever thread or stream runs them: every rank then executes its
// operations in the same order, which is what keeps ranks matched.
class TurnTaker {
 public:
  uint64_t take();  // in program order, in the issuing thread
  // Blocks until it is `ticket`'s turn; false if `giveUp` says so first.
  bool waitTurn(uint64_t ticket, const std::function<bool()>& giveUp);
  void finishTurn();
  // Waits until every ticket taken so far has finished (or giveUp).
  bool waitIdle(const std::function<bool()>& giveUp);

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t next_ = 0;
  uint64_t serving_ = 0;
};

}  // namespace trnccl::runtime
