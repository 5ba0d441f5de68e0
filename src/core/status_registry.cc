#include "core/status_registry.h"

#include <unistd.h>

#include <map>
#include <mutex>

namespace trnccl::core {
namespace {

struct Registry {
  std::mutex mutex;  // held while descriptions run, so an entry's removal waits for them
  std::map<uint64_t, std::function<nlohmann::json()>> describers;
  uint64_t nextId = 1;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: responders may outlive static destruction
  return *r;
}

}  // namespace

StatusRegistry::Entry::Entry(std::function<nlohmann::json()> describe) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  id_ = r.nextId++;
  r.describers.emplace(id_, std::move(describe));
}

StatusRegistry::Entry::~Entry() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.describers.erase(id_);
}

nlohmann::json StatusRegistry::describeProcess() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  nlohmann::json process{{"pid", static_cast<int64_t>(getpid())}, {"host", host}, {"comms", nlohmann::json::array()}};
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto& [id, describe] : r.describers) process["comms"].push_back(describe());
  return process;
}

}  // namespace trnccl::core
