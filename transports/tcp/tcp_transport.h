// The TCP transport: plain sockets between ranks on hosts with neither shared
// memory between them nor libfabric. Each pair of ranks holds several
// connections; large messages are striped over them in chunks, interleaved
// with other messages so that none waits behind a large one. Progress is
// non-blocking (poll, no thread); wait() sleeps in poll. See
// tcp_transport_internal.h for the protocol.
//
// Environment: TRNCCL_TCP_SOCKETS_PER_PEER (connections per pair of ranks,
// 1-16, default 2); TRNCCL_SOCKET_IFNAME (the interface to listen on, NCCL
// syntax; loopback when unset).
#pragma once

#include <memory>

#include "transports/transport.h"

namespace trnccl::transport {

// Collective: every rank of options.oob calls it, also one without peers,
// with mutual peer lists. Throws trnccl::Error naming the rank and address it
// could not reach within options.timeout.
std::unique_ptr<Transport> createTcpTransport(const Options& options);

}  // namespace trnccl::transport
