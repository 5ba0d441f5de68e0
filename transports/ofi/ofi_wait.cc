// The libfabric transport: sleeping until a completion queue has something
// (its wait object, where the provider has one) or interrupt() is called.
#include <poll.h>
#include <unistd.h>

#include <algorithm>

#include "transports/ofi/ofi_transport_internal.h"

namespace trnccl::transport::ofi {
namespace {

// Providers without a wait object, or whose fi_trywait keeps refusing, are
// polled at least this often.
constexpr std::chrono::microseconds kPollInterval{500};

}  // namespace

bool OfiTransport::hasPostableWork() const {
  for (const RailQueues& q : queues_) {
    const bool sendable = !q.sends.empty() && !q.sendsBlocked && q.sendsPosted < q.sendLimit;
    const bool receivable = !q.receives.empty() && !q.receivesBlocked && q.receivesPosted < q.receiveLimit;
    if (sendable || receivable) return true;
  }
  return false;
}

bool OfiTransport::readyToSleep() {
  return std::all_of(rails_.begin(), rails_.end(), [](const auto& rail) { return rail->readyToSleep(); });
}

void OfiTransport::wait(std::chrono::microseconds maxWait) {
  if (pendingError_ || hasPostableWork()) return;
  const auto deadline = std::chrono::steady_clock::now() + maxWait;
  // A provider's descriptor also wakes for work of its own, and rxd's
  // fi_trywait keeps refusing while it has acknowledgements or retransmissions
  // pending: read the queues and, when nothing in them was ours, sleep (or
  // poll) again until the deadline.
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - std::chrono::steady_clock::now());
    if (faults_ && !faults_->empty()) {
      const uint64_t due = faults_->nextDueNs(), now = nowNs();
      if (due <= now) return;
      left = std::min(left, std::chrono::microseconds((due - now + 999) / 1000));
    }
    if (left.count() <= 0) return;
    pollfd fds[kMaxRails + 1];
    nfds_t count = 0;
    fds[count++] = {wakeup_.fd(), POLLIN, 0};
    bool sleepOnQueues = !pollingWithoutFd_ && readyToSleep();
    if (!pollingWithoutFd_ && !sleepOnQueues) {
      poll();  // fi_trywait's contract: read the queues, then try again
      if (!completions_.empty() || pendingError_) return;
      sleepOnQueues = readyToSleep();
    }
    if (sleepOnQueues) {
      for (const auto& rail : rails_) fds[count++] = {rail->waitFd(), POLLIN, 0};
    } else {
      left = std::min(left, kPollInterval);
    }
    const timespec timeout{static_cast<time_t>(left.count() / 1000000),
                           static_cast<long>(left.count() % 1000000) * 1000};
    ppoll(fds, count, &timeout, nullptr);
    if (fds[0].revents != 0) {
      wakeup_.clear();
      return;
    }
    poll();
    if (!completions_.empty() || pendingError_) return;
  }
}

void OfiTransport::interrupt() { wakeup_.wake(); }

}  // namespace trnccl::transport::ofi
