#include "core/status_responder.h"

#include <poll.h>

#include <cerrno>
#include <chrono>
#include <string>

#include "base/error.h"
#include "base/log.h"
#include "core/bootstrap_protocol.h"
#include "core/status_registry.h"

namespace trnccl::core {

using namespace wire;

StatusResponder::StatusResponder(net::Socket rootLink) : link_(std::move(rootLink)) {
  // No link: a bare communicator of one rank made without a root.
  if (link_.fd() >= 0) thread_ = std::thread([this] { run(); });
}

StatusResponder::~StatusResponder() {
  stop_.wake();
  if (thread_.joinable()) thread_.join();
}

void StatusResponder::run() noexcept {
  StatusRequest request{};
  size_t received = 0;
  while (true) {
    pollfd fds[2] = {{link_.fd(), link_.pollEvents(POLLIN), 0}, {stop_.fd(), POLLIN, 0}};
    if (!link_.hasBuffered() && ::poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    try {
      while (size_t got = link_.recvSome(reinterpret_cast<char*>(&request) + received, sizeof(request) - received)) {
        received += got;
        if (received < sizeof(request)) continue;
        received = 0;
        if (request.magic != kStatusMagic) throwError(trncclRemoteError, "a malformed status request");
        answer(request.query);
      }
    } catch (const std::exception& e) {
      // The root's process ended (it was the job's launcher, or rank 0 is
      // gone): nobody will ask again.
      TRNCCL_INFO("status responder: the connection to the rendezvous root ended: %s", e.what());
      return;
    }
  }
}

void StatusResponder::answer(uint64_t query) {
  const std::string text = StatusRegistry::describeProcess().dump();
  const StatusAnswer header{query, text.size()};
  const net::Deadline deadline(std::chrono::seconds(5));
  link_.sendAll(&header, sizeof(header), deadline);
  link_.sendAll(text.data(), text.size(), deadline);
}

}  // namespace trnccl::core
