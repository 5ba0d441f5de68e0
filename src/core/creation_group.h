// The communicators trncclCommInitAll creates together, one thread per rank:
// when one rank's creation fails, the others would wait for it (in the
// rendezvous, in setup exchanges) until the timeout. The group aborts every
// member still being created instead, so all fail at once.
#pragma once

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace trnccl::core {

class CreationGroup {
 public:
  // A communicator's abort flag, from the start of its creation until it is
  // destroyed; set at once if the group has failed already.
  void join(std::atomic<bool>* abortFlag) {
    std::lock_guard<std::mutex> lock(mutex_);
    flags_.push_back(abortFlag);
    if (failed_) abortFlag->store(true);
  }
  void leave(std::atomic<bool>* abortFlag) {
    std::lock_guard<std::mutex> lock(mutex_);
    flags_.erase(std::remove(flags_.begin(), flags_.end(), abortFlag), flags_.end());
  }
  // A member failed: abort every other.
  void fail() {
    std::lock_guard<std::mutex> lock(mutex_);
    failed_ = true;
    for (std::atomic<bool>* flag : flags_) flag->store(true);
  }

 private:
  std::mutex mutex_;
  std::vector<std::atomic<bool>*> flags_;
  bool failed_ = false;
};

}  // namespace trnccl::core
