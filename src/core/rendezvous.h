// The rendezvous behind a unique id: the root that serves it (a thread of the
// process that called trncclGetUniqueId) and a rank's side of joining it.
#pragma once

#include <vector>

#include "base/socket.h"
#include "core/bootstrap.h"

namespace trnccl::core {

// Registers `rank` (listening at `listenAddress`) with the root of `info` and
// returns every rank's listen address.
std::vector<net::SocketAddress> joinRendezvous(const RendezvousInfo& info, int rank, int nranks,
                                               const net::SocketAddress& listenAddress, const net::Deadline& deadline);

}  // namespace trnccl::core
