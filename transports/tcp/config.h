// Settings of the TCP transport from the environment.
#pragma once

namespace trnccl::transport::tcp {

struct Config {
  // Connections per pair of ranks (TRNCCL_TCP_SOCKETS_PER_PEER): large
  // messages are striped over all of them. A pair uses the smaller of its two
  // ranks' values.
  int socketsPerPeer = 2;
  // How long a connection may go without the kernel hearing an
  // acknowledgement for data it sent, while the peer has not acknowledged a
  // frame, before its traffic moves to the pair's other connections
  // (TRNCCL_TCP_RAIL_STALL_MS): rail failover.
  int railStallMs = 1000;
};

inline constexpr int kMaxSocketsPerPeer = 16;

// Throws Error(InvalidArgument) naming a variable whose value is not allowed.
Config readConfig();

}  // namespace trnccl::transport::tcp
