#include "transports/tcp/config.h"

#include "base/settings.h"

namespace trnccl::transport::tcp {
namespace {

TRNCCL_SETTING(kSocketsPerPeer, TRNCCL_TCP_SOCKETS_PER_PEER,
               settings::integer(Config{}.socketsPerPeer, 1, kMaxSocketsPerPeer),
               "sockets per peer pair for the tcp transport");

TRNCCL_SETTING(kRailStallMs, TRNCCL_TCP_RAIL_STALL_MS, settings::integer(Config{}.railStallMs, 10, 3600000),
               "ms a tcp connection may stall (no acknowledgement) before its traffic fails over to the others");

}  // namespace

Config readConfig() {
  Config config;
  config.socketsPerPeer = static_cast<int>(settings::readInt(kSocketsPerPeer));
  config.railStallMs = static_cast<int>(settings::readInt(kRailStallMs));
  return config;
}

}  // namespace trnccl::transport::tcp
