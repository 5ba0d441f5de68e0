#include "api/handles.h"

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

// Never destroyed: handles may be checked during static destruction.
Registry<trncclComm_t>& comms() {
  static auto* r = new Registry<trncclComm_t>;
  return *r;
}
Registry<trncclStream_t>& streams() {
  static auto* r = new Registry<trncclStream_t>;
  return *r;
}

thread_local std::string threadLastError;

}  // namespace

void registerComm(trncclComm_t comm) { comms().add(comm); }
void unregisterComm(trncclComm_t comm) { comms().remove(comm); }
bool isLive(trncclComm_t comm) { return comm != nullptr && comms().has(comm); }

core::Communicator& liveComm(trncclComm_t comm, const char* argument) {
  if (comm == nullptr) throwInvalidArgument(argument, "is NULL");
  if (!isLive(comm))
    throwInvalidArgument(argument, "is not a live communicator (destroyed, or never created)");
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
  if (!streams().has(stream))
    throwInvalidArgument(argument, "is not a live stream (destroyed, or never created)");
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
  if (isLive(comm)) {
    std::lock_guard<std::mutex> lock(comm->errorMutex);
    return comm->lastError.c_str();
  }
  return threadLastError.c_str();
}

}  // namespace trnccl::api
