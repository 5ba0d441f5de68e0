// The rendezvous behind a unique id: the root that serves it (a thread of the
// process that called trncclGetUniqueId) and a rank's side of joining it.
#pragma once

#include <memory>
#include <vector>

#include "base/socket.h"
#include "base/tls.h"
#include "core/bootstrap.h"

namespace trnccl::core {

// What a rank takes from the rendezvous: every rank's listen address, and its
// connection to the root, over which the root asks it for its status later
// (core/status_responder.h).
struct Joined {
  std::vector<net::SocketAddress> peers;
  net::Socket rootLink;
};

// Registers `rank` (listening at `listenAddress`) with the root of `info`.
Joined joinRendezvous(const RendezvousInfo& info, int rank, int nranks, const net::SocketAddress& listenAddress,
                      const net::Deadline& deadline);

// The TLS context the job of `info` uses (null: plaintext). Throws
// InvalidUsage when this process's encryption setting disagrees with the
// one the unique id was made with.
std::shared_ptr<const net::TlsContext> jobTls(const RendezvousInfo& info);

}  // namespace trnccl::core
