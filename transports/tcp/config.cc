#include "transports/tcp/config.h"

#include "base/env.h"

namespace trnccl::transport::tcp {

Config readConfig() {
  Config config;
  config.socketsPerPeer =
      static_cast<int>(env::getInt("TRNCCL_TCP_SOCKETS_PER_PEER", config.socketsPerPeer, 1, kMaxSocketsPerPeer));
  return config;
}

}  // namespace trnccl::transport::tcp
