#include "transports/factory.h"

#include <algorithm>

#include "base/error.h"
#include "transports/ofi/ofi_transport.h"
#include "transports/shm/shm_transport.h"
#include "transports/tcp/tcp_transport.h"

namespace trnccl::transport {

const std::vector<TransportEntry>& transports() {
  // Between instances ofi (EFA) comes first: tcp is the fallback.
  static const std::vector<TransportEntry> kTransports = {
      {"shm", createShmTransport, Reach::Instance, 0},
      {"ofi", createOfiTransport, Reach::Network, 0},
      {"tcp", createTcpTransport, Reach::Network, 1},
  };
  return kTransports;
}

std::vector<std::string> transportNames() {
  std::vector<std::string> names;
  for (const TransportEntry& t : transports()) names.push_back(t.name);
  return names;
}

std::vector<std::string> transportNames(Reach reach) {
  std::vector<const TransportEntry*> reaching;
  for (const TransportEntry& t : transports())
    if (t.reach == reach) reaching.push_back(&t);
  std::stable_sort(reaching.begin(), reaching.end(), [](auto* a, auto* b) { return a->autoRank < b->autoRank; });
  std::vector<std::string> names;
  for (const TransportEntry* t : reaching) names.push_back(t->name);
  return names;
}

const TransportEntry& transportNamed(const std::string& name) {
  for (const TransportEntry& t : transports())
    if (name == t.name) return t;
  throwInvalidArgument("transport", "'" + name + "' is not a transport of this build");
}

const TransportEntry* preferredTransport(Reach reach) {
  const TransportEntry* best = nullptr;
  for (const TransportEntry& t : transports())
    if (t.reach == reach && (best == nullptr || t.autoRank < best->autoRank)) best = &t;
  return best;
}

std::unique_ptr<Transport> createTransport(const std::string& name, const Options& options) {
  return transportNamed(name).create(options);
}

}  // namespace trnccl::transport
