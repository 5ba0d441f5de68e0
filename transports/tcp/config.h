// Settings of the TCP transport from the environment.
#pragma once

namespace trnccl::transport::tcp {

struct Config {
  // Connections per pair of ranks (TRNCCL_TCP_SOCKETS_PER_PEER): large
  // messages are striped over all of them. A pair uses the smaller of its two
  // ranks' values.
  int socketsPerPeer = 2;
};

inline constexpr int kMaxSocketsPerPeer = 16;

// Throws Error(InvalidArgument) naming a variable whose value is not allowed.
Config readConfig();

}  // namespace trnccl::transport::tcp
