#include "runtime/stream.h"

#include <sched.h>

#include "base/error.h"
#include "topology/host.h"

namespace trnccl::runtime {
namespace {

cpu_set_t callerCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) CPU_ZERO(&set);
  return set;
}

}  // namespace

// The progress thread runs near the cores of the rank that created the
// stream (its NUMA node), where that rank's buffers live.
Stream::Stream()
    : worker_([this, near = callerCores()] {
        if (CPU_COUNT(&near) > 0) topo::bindThreadNear(near);
        run();
      }) {}

Stream::~Stream() {
  stopping_ = true;
  workArrived_.notify();
  worker_.join();
}

void Stream::enqueue(std::function<void()> work) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(work));
  }
  enqueued_.fetch_add(1, std::memory_order_release);
  workArrived_.notify();
}

// The predicate of run()'s wait: FutexEvent::wait may evaluate it again after it
// was true once (before sleeping, then on its next turn), so an operation
// already taken is kept, not replaced by the next one in the queue.
bool Stream::takeWork(std::function<void()>& work) {
  if (work) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  if (queue_.empty()) return false;
  work = std::move(queue_.front());
  queue_.pop_front();
  return true;
}

void Stream::run() {
  std::function<void()> work;
  for (;;) {
    workArrived_.wait([&] { return takeWork(work); }, [&] { return stopping_.load(); });
    if (!work) return;  // stopping, and nothing left
    trncclResult_t result = trncclSuccess;
    std::string message;
    try {
      work();
    } catch (const Error& e) {
      result = e.code(), message = e.what();
    } catch (const std::exception& e) {
      result = trncclInternalError, message = e.what();
    }
    if (result != trncclSuccess) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (error_ == trncclSuccess) error_ = result, errorMessage_ = message;
    }
    // Complete before the closure goes: destroying it is what tells its
    // communicator the work is done, and by then the stream must agree.
    completed_.fetch_add(1, std::memory_order_release);
    workDone_.notify();
    work = nullptr;
  }
}

trncclResult_t Stream::synchronize(std::string* message) {
  const uint64_t target = enqueued_.load(std::memory_order_acquire);
  workDone_.wait([&] { return completed_.load(std::memory_order_acquire) >= target; }, [] { return false; });
  std::lock_guard<std::mutex> lock(mutex_);
  trncclResult_t result = error_;
  if (message) *message = errorMessage_;
  error_ = trncclSuccess;
  errorMessage_.clear();
  return result;
}

trncclResult_t Stream::query() const {
  if (completed_.load(std::memory_order_acquire) != enqueued_.load(std::memory_order_acquire)) return trncclInProgress;
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

void TurnTaker::finishTurn() {
  // Only the turn's holder moves serving_ on: a store, not a read-modify-write.
  serving_.store(serving_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  changed_.notify();
}

}  // namespace trnccl::runtime
