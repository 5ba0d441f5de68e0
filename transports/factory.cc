#include "transports/factory.h"

#include <algorithm>

#include "base/error.h"

namespace trnccl::transport {

// registered_transports.inc: TRNCCL_TRANSPORT_FOLDER(<folder>) for each
// transport of TRNCCL_TRANSPORTS, in its order (written by transports.cmake).
#define TRNCCL_TRANSPORT_FOLDER(folder) TransportEntry TRNCCL_TRANSPORT_OF(folder)();
#include "registered_transports.inc"
#undef TRNCCL_TRANSPORT_FOLDER

namespace {

std::vector<TransportEntry> collectTransports() {
  std::vector<TransportEntry> all;
#define TRNCCL_TRANSPORT_FOLDER(folder) all.push_back(TRNCCL_TRANSPORT_OF(folder)());
#include "registered_transports.inc"
#undef TRNCCL_TRANSPORT_FOLDER
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (std::string(all[i].name) == all[j].name)
        throwError(trncclInternalError, std::string("two transports are named ") + all[i].name);
  return all;
}

}  // namespace

const std::vector<TransportEntry>& transports() {
  static const std::vector<TransportEntry> all = collectTransports();
  return all;
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

}  // namespace trnccl::transport
