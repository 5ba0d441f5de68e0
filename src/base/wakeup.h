// An eventfd that wakes a thread blocked in poll() on it: interrupt() of the
// network transports, callable from any thread. A wake-up before the poll is
// not lost: the descriptor stays readable until cleared.
#pragma once

namespace trnccl {

class Wakeup {
 public:
  Wakeup();
  ~Wakeup();
  Wakeup(const Wakeup&) = delete;
  Wakeup& operator=(const Wakeup&) = delete;

  int fd() const { return fd_; }
  void wake();
  void clear();

 private:
  int fd_;
};

}  // namespace trnccl
