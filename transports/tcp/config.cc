#include "transports/tcp/config.h"

#include "base/settings.h"

namespace trnccl::transport::tcp {
namespace {

TRNCCL_SETTING(kSocketsPerPeer, TRNCCL_TCP_SOCKETS_PER_PEER,
               settings::integer(Config{}.socketsPerPeer, 1, kMaxSocketsPerPeer),
               "sockets per peer pair for the tcp transport");

}  // namespace

Config readConfig() {
  Config config;
  config.socketsPerPeer = static_cast<int>(settings::readInt(kSocketsPerPeer));
  return config;
}

}  // namespace trnccl::transport::tcp
