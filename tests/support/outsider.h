// An outsider on a trnccl port, for the tests that check it is dropped: a
// connection that trickles a greeting a byte at a time (or says nothing).
// Header-only: it needs the library's sockets, which only test programs link.
#pragma once

#include <poll.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>

#include "base/error.h"
#include "base/socket.h"
#include "tests/support/open_descriptors.h"

namespace trnccl::test {

// Sends `trickle` a byte every `gap` (nothing when empty) until the far end
// closes `socket` or `within` passes. Returns how long the far end took to
// close it, or nothing when it kept it open all along.
inline std::optional<std::chrono::milliseconds> closedWhileTrickling(net::Socket& socket,
                                                                     std::span<const std::byte> trickle,
                                                                     std::chrono::milliseconds gap,
                                                                     std::chrono::milliseconds within) {
  const auto start = std::chrono::steady_clock::now();
  const net::Deadline deadline(within);
  size_t sent = 0;
  try {
    while (!deadline.expired()) {
      if (sent < trickle.size()) sent += socket.sendSome(&trickle[sent], 1);
      pollfd readable{socket.fd(), POLLIN, 0};
      const auto next = std::chrono::steady_clock::now() + gap;
      while (std::chrono::steady_clock::now() < next && !deadline.expired()) {
        net::pollFor({&readable, 1}, deadline, gap);
        std::byte sink[64];
        if (readable.revents != 0) socket.recvSome(sink, sizeof sink);  // throws once closed
      }
    }
  } catch (const Error&) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  }
  return std::nullopt;
}

}  // namespace trnccl::test
