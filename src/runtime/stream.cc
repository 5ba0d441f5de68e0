#include "runtime/stream.h"

#include "base/error.h"

namespace trnccl::runtime {

Stream::Stream() : worker_([this] { run(); }) {}

Stream::~Stream() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void Stream::enqueue(std::function<void()> work) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(work));
  }
  changed_.notify_all();
}

void Stream::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and drained
    auto work = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    trncclResult_t result = trncclSuccess;
    std::string message;
    try {
      work();
    } catch (const Error& e) {
      result = e.code(), message = e.what();
    } catch (const std::exception& e) {
      result = trncclInternalError, message = e.what();
    }
    lock.lock();
    busy_ = false;
    if (result != trncclSuccess && error_ == trncclSuccess) error_ = result, errorMessage_ = message;
    changed_.notify_all();
  }
}

trncclResult_t Stream::synchronize(std::string* message) {
  std::unique_lock<std::mutex> lock(mutex_);
  // Each queued operation is bounded by its communicator's timeout, so this
  // wait is bounded too.
  changed_.wait(lock, [&] { return queue_.empty() && !busy_; });
  trncclResult_t result = error_;
  if (message) *message = errorMessage_;
  error_ = trncclSuccess;
  errorMessage_.clear();
  return result;
}

trncclResult_t Stream::query() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!queue_.empty() || busy_) return trncclInProgress;
  return error_;
}

uint64_t TurnTaker::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  return next_++;
}

bool TurnTaker::waitTurn(uint64_t ticket, const std::function<bool()>& giveUp) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (serving_ != ticket) {
    if (giveUp()) return false;
    changed_.wait_for(lock, std::chrono::milliseconds(50));
  }
  return true;
}

void TurnTaker::finishTurn() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++serving_;
  }
  changed_.notify_all();
}

bool TurnTaker::waitIdle(const std::function<bool()>& giveUp) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (serving_ != next_) {
    if (giveUp()) return false;
    changed_.wait_for(lock, std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace trnccl::runtime
