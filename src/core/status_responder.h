// A rank's side of a status query (trnccl-top): a thread that sleeps in
// poll() on the rank's connection to the rendezvous root and, when the root
// asks, answers with this process's communicators (core/status_registry.h).
// It costs nothing while nobody asks, and reads the communicators without
// taking a lock their collectives hold, so a query never slows a call. A
// rank that is stopped or stuck in its own thread still answers: only a
// stopped process does not, which the root reports.
#pragma once

#include <thread>

#include "base/socket.h"
#include "base/wakeup.h"

namespace trnccl::core {

class StatusResponder {
 public:
  // Answers over `rootLink` until destroyed or the root closes it.
  explicit StatusResponder(net::Socket rootLink);
  ~StatusResponder();
  StatusResponder(const StatusResponder&) = delete;
  StatusResponder& operator=(const StatusResponder&) = delete;

 private:
  void run() noexcept;
  void answer(uint64_t query);

  net::Socket link_;
  Wakeup stop_;
  std::thread thread_;
};

}  // namespace trnccl::core
