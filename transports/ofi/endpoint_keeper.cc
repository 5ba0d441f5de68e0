#include "transports/ofi/endpoint_keeper.h"

#include <map>
#include <mutex>
#include <utility>

namespace trnccl::transport::ofi {
namespace {

struct Job {
  int members = 0;
  std::vector<ParkedEndpoints> parked;
};

std::mutex& jobsMutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<std::string, Job>& jobs() {
  static auto* all = new std::map<std::string, Job>;  // never destroyed: no exit-order surprises
  return *all;
}

}  // namespace

EndpointKeeper::EndpointKeeper(std::string jobKey) : jobKey_(std::move(jobKey)) {
  std::lock_guard lock(jobsMutex());
  ++jobs()[jobKey_].members;
}

EndpointKeeper::~EndpointKeeper() {
  std::vector<ParkedEndpoints> closing;
  {
    std::lock_guard lock(jobsMutex());
    auto job = jobs().find(jobKey_);
    if (--job->second.members > 0) return;
    closing = std::move(job->second.parked);
    jobs().erase(job);
  }
  closing.clear();  // outside the lock: closing an endpoint may take a while
}

void EndpointKeeper::park(ParkedEndpoints endpoints) {
  std::lock_guard lock(jobsMutex());
  jobs()[jobKey_].parked.push_back(std::move(endpoints));
}

}  // namespace trnccl::transport::ofi
