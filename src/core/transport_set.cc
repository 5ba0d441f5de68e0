#include "core/transport_set.h"

#include "base/error.h"

namespace trnccl::core {

const transport::TransportEntry& instanceTransport() {
  const transport::TransportEntry* local = transport::preferredTransport(transport::Reach::Instance);
  if (local == nullptr) throwError(trncclInternalError, "this build has no transport within an instance");
  return *local;
}

namespace {

// "ofi or tcp": the network transports, preferred first.
std::string networkTransportChoices() {
  std::string text;
  for (const std::string& name : transport::transportNames(transport::Reach::Network))
    text += (text.empty() ? "" : " or ") + name;
  return text;
}

}  // namespace

const transport::TransportEntry& networkTransport(const std::string& setting, const std::string& source,
                                                  int hostCount) {
  if (setting == "auto") {
    const transport::TransportEntry* preferred = transport::preferredTransport(transport::Reach::Network);
    return preferred ? *preferred : instanceTransport();
  }
  const transport::TransportEntry& chosen = transport::transportNamed(setting);
  if (chosen.reach == transport::Reach::Instance && hostCount > 1)
    throwError(trncclInvalidUsage, source + "=" + setting + ", but the ranks run on " + std::to_string(hostCount) +
                                       " hosts: use " + networkTransportChoices() + " (or auto)");
  return chosen;
}

TransportSet::TransportSet(const transport::Options& options, const std::vector<int>& instanceOf,
                           const transport::TransportEntry& local, const transport::TransportEntry& network)
    : byPeer_(options.nranks, nullptr) {
  if (options.nranks == 1) return;
  auto instance = [&](int r) { return instanceOf.empty() ? 0 : instanceOf[r]; };
  const bool oneTransport = &network == &local;
  transport::Options near = options;
  near.peers.clear();
  transport::Options far = near;
  for (int r = 0; r < options.nranks; ++r)
    if (r != options.rank) (instance(r) == instance(options.rank) || oneTransport ? near : far).peers.push_back(r);
  far.emulation = {};

  owned_.push_back(local.create(near));
  if (!oneTransport) owned_.push_back(network.create(far));
  for (int r : near.peers) byPeer_[r] = owned_[0].get();
  for (int r : far.peers) byPeer_[r] = owned_[1].get();
}

std::vector<transport::Transport*> TransportSet::all() const {
  std::vector<transport::Transport*> transports;
  for (const auto& t : owned_) transports.push_back(t.get());
  return transports;
}

std::string TransportSet::description() const {
  std::string text;
  for (const auto& t : owned_) text += (text.empty() ? "" : " + ") + t->description();
  return text.empty() ? "none" : text;
}

transport::MemoryUse TransportSet::memoryUse() const {
  transport::MemoryUse total;
  for (const auto& t : owned_) {
    const transport::MemoryUse use = t->memoryUse();
    total.sharedBytes += use.sharedBytes;
    total.hostBytes += use.hostBytes;
    total.registeredBytes += use.registeredBytes;
    total.peersWithBuffers += use.peersWithBuffers;
    total.mappedPeerBytes += use.mappedPeerBytes;
  }
  return total;
}

void TransportSet::interrupt() {
  for (const auto& t : owned_) t->interrupt();
}

void TransportSet::close() {
  for (const auto& t : owned_) t->cancelAll();
  owned_.clear();
  std::fill(byPeer_.begin(), byPeer_.end(), nullptr);
}

}  // namespace trnccl::core
