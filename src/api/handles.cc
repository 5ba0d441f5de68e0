#include "api/handles.h"

#include <condition_variable>
#include <unordered_map>
#include <unordered_set>

#include "api/guard.h"
#include "base/error.h"

namespace trnccl::api {
namespace {

template <class Handle>
struct Registry {
  std::mutex mutex;
  std::unordered_set<Handle> live;
  void add(Handle h) {
    std::lock_guard<std::mutex> lock(mutex);
    live.insert(h);
  }
  void remove(Handle h) {
    std::lock_guard<std::mutex> lock(mutex);
    live.erase(h);
  }
  bool has(Handle h) {
    std::lock_guard<std::mutex> lock(mutex);
    return live.count(h) != 0;
  }
};

// Live communicators and how many calls hold each.
struct CommRegistry {
  std::mutex mutex;
  std::condition_variable released;
  std::unordered_map<trncclComm_t, int> holds;
};

// Never destroyed: handles may be checked during static destruction.
CommRegistry& comms() {
  static auto* r = new CommRegistry;
  return *r;
}
Registry<trncclStream_t>& streams() {
  static auto* r = new Registry<trncclStream_t>;
  return *r;
}

thread_local std::string threadLastError;

}  // namespace

void registerComm(trncclComm_t comm) {
  std::lock_guard lock(comms().mutex);
  comms().holds.emplace(comm, 0);
}

bool isLive(trncclComm_t comm) {
  if (comm == nullptr) return false;
  std::lock_guard lock(comms().mutex);
  return comms().holds.contains(comm);
}

void retireComm(trncclComm_t comm, int callerHolds) {
  CommRegistry& r = comms();
  {
    std::unique_lock lock(r.mutex);
    auto entry = r.holds.find(comm);
    if (entry == r.holds.end()) return;
    r.released.wait(lock, [&] { return entry->second <= callerHolds; });
    r.holds.erase(entry);
  }
  delete comm;
}

CommHold::CommHold(trncclComm_t comm) {
  if (comm == nullptr) return;
  std::lock_guard lock(comms().mutex);
  auto entry = comms().holds.find(comm);
  if (entry == comms().holds.end()) return;
  ++entry->second;
  comm_ = comm;
}

CommHold::~CommHold() {
  if (comm_ == nullptr) return;
  {
    std::lock_guard lock(comms().mutex);
    // Gone when this very call retired it (destroy, abort); otherwise a
    // retiring thread may be waiting for this hold to go.
    auto entry = comms().holds.find(comm_);
    if (entry == comms().holds.end()) return;
    --entry->second;
  }
  comms().released.notify_all();
}

core::Communicator& liveComm(trncclComm_t comm, const char* argument) {
  if (comm == nullptr) throwInvalidArgument(argument, "is NULL");
  if (!isLive(comm)) throwInvalidArgument(argument, "is not a live communicator (destroyed, or never created)");
  return *comm->impl;
}

core::Communicator& usableComm(trncclComm_t comm) {
  core::Communicator& c = liveComm(comm);
  c.checkUsable();
  return c;
}

void registerStream(trncclStream_t stream) { streams().add(stream); }
void unregisterStream(trncclStream_t stream) { streams().remove(stream); }

runtime::Stream* streamOf(trncclStream_t stream, const char* argument) {
  if (stream == nullptr) return nullptr;
  if (!streams().has(stream)) throwInvalidArgument(argument, "is not a live stream (destroyed, or never created)");
  return &stream->impl;
}

void setLastError(trncclComm_t comm, const std::string& message) {
  threadLastError = message;
  if (isLive(comm)) {
    std::lock_guard<std::mutex> lock(comm->errorMutex);
    comm->lastError = message;
  }
}

const char* lastError(trncclComm_t comm) {
  const CommHold hold(comm);
  if (isLive(comm)) {
    std::lock_guard<std::mutex> lock(comm->errorMutex);
    return comm->lastError.c_str();
  }
  return threadLastError.c_str();
}

}  // namespace trnccl::api
