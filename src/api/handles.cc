#include "api/handles.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <unordered_set>

#include "api/guard.h"
#include "base/asymmetric_fence.h"
#include "base/error.h"

namespace trnccl::api {

// Live communicators, read without a lock: every C call looks its
// communicator up, so a mutex here was the API's largest per-call cost. A
// slot is never freed (only reused once empty), so a reader may look at any
// slot at any time.
struct CommSlot {
  std::atomic<trncclComm_t> comm{nullptr};
};

// The communicators each thread's C calls hold now: one list per thread
// (hazard pointers), so that a hold writes only its own thread's list, with
// no locked instruction, and a destroy or abort (rare) reads every list. A
// list is never freed: a thread that ends hands it to the next new thread.
struct HoldList {
  static constexpr int kDepth = 8;  // C calls one thread is inside at once (a destroy: 1)
  std::atomic<trncclComm_t> held[kDepth] = {};
  int depth = 0;  // its thread's own
  std::atomic<bool> taken{true};
  HoldList* next = nullptr;
};

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

class HoldLists {
 public:
  HoldList& take() {
    for (HoldList* l = head_.load(std::memory_order_acquire); l != nullptr; l = l->next) {
      bool free = false;
      if (l->taken.compare_exchange_strong(free, true)) return *l;
    }
    auto* l = new HoldList;
    l->next = head_.load(std::memory_order_relaxed);
    while (!head_.compare_exchange_weak(l->next, l)) {
    }
    return *l;
  }
  // How many holds on `comm` all threads have now.
  int holdsOf(trncclComm_t comm) const {
    int holds = 0;
    for (const HoldList* l = head_.load(std::memory_order_acquire); l != nullptr; l = l->next)
      for (const auto& h : l->held) holds += h.load(std::memory_order_relaxed) == comm ? 1 : 0;
    return holds;
  }

 private:
  std::atomic<HoldList*> head_{nullptr};
};

HoldLists& holdLists() {
  static auto* lists = new HoldLists;  // never destroyed, as the registries
  return *lists;
}

HoldList& threadHolds() {
  struct Owner {
    HoldList& list = holdLists().take();
    ~Owner() { list.taken.store(false, std::memory_order_release); }
  };
  thread_local Owner owner;
  return owner.list;
}

class CommRegistry {
 public:
  // The slot holding `comm`, or null; lock-free.
  CommSlot* find(trncclComm_t comm) const {
    const size_t used = used_.load(std::memory_order_acquire);
    for (size_t i = 0; i < used; ++i) {
      CommSlot& s = slot(i);
      if (s.comm.load(std::memory_order_acquire) == comm) return &s;
    }
    return nullptr;
  }

  void add(trncclComm_t comm) {
    std::lock_guard lock(mutex_);
    const size_t used = used_.load(std::memory_order_relaxed);
    for (size_t i = 0; i < used; ++i) {
      CommSlot& s = slot(i);
      if (s.comm.load(std::memory_order_relaxed) == nullptr) {
        s.comm.store(comm, std::memory_order_release);
        return;
      }
    }
    if (used == kChunks * kChunkSlots) throwError(trncclSystemError, "more than 65536 live communicators");
    if (used % kChunkSlots == 0)
      chunks_[used / kChunkSlots].store(new CommSlot[kChunkSlots], std::memory_order_release);
    slot(used).comm.store(comm, std::memory_order_release);
    used_.store(used + 1, std::memory_order_release);
  }

  // Takes `comm` out (false if it is not live), then waits until the holds
  // on it are down to `callerHolds`.
  bool remove(trncclComm_t comm, int callerHolds) {
    {
      std::lock_guard lock(mutex_);
      CommSlot* s = find(comm);
      if (s == nullptr) return false;
      s->comm.store(nullptr);
    }
    // Pairs with CommHold's light fence: either the hold sees the slot empty
    // or we see the hold.
    heavyFence();
    // Rare (destroy, abort) and may wait for a blocked call: poll, backing off.
    for (auto pause = std::chrono::microseconds(1); holdLists().holdsOf(comm) > callerHolds;
         pause = std::min(pause * 2, std::chrono::microseconds(1000)))
      std::this_thread::sleep_for(pause);
    return true;
  }

 private:
  static constexpr size_t kChunkSlots = 64, kChunks = 1024;
  CommSlot& slot(size_t i) const { return chunks_[i / kChunkSlots].load(std::memory_order_acquire)[i % kChunkSlots]; }

  std::mutex mutex_;  // serialises add and remove
  std::atomic<CommSlot*> chunks_[kChunks] = {};
  std::atomic<size_t> used_{0};
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

void registerComm(trncclComm_t comm) { comms().add(comm); }

bool isLive(trncclComm_t comm) { return comm != nullptr && comms().find(comm) != nullptr; }

void retireComm(trncclComm_t comm, int callerHolds) {
  if (comms().remove(comm, callerHolds)) delete comm;
}

CommHold::CommHold(trncclComm_t comm) {
  if (comm == nullptr) return;
  HoldList& mine = threadHolds();
  // No C call nests inside another more than once (a destroy holds its
  // own communicator); past kDepth the call would run unheld.
  if (mine.depth == HoldList::kDepth) return;
  std::atomic<trncclComm_t>& entry = mine.held[mine.depth];
  entry.store(comm, std::memory_order_relaxed);
  lightFence();                         // the hold before the check below: see CommRegistry::remove
  if (comms().find(comm) == nullptr) {  // not live, or retired meanwhile: not held
    entry.store(nullptr, std::memory_order_relaxed);
    return;
  }
  ++mine.depth;
  list_ = &mine;
}

CommHold::~CommHold() {
  if (list_ == nullptr) return;
  list_->held[--list_->depth].store(nullptr, std::memory_order_release);
}

core::Communicator& liveComm(trncclComm_t comm, const char* argument) {
  if (comm == nullptr) throwInvalidArgument(argument, "is NULL");
  if (!isLive(comm)) throwInvalidArgument(argument, "is not a live communicator (destroyed, or never created)");
  return *comm->impl;
}

core::Communicator& usableComm(trncclComm_t comm) {
  core::Communicator& c = liveComm(comm);
  c.health().checkUsable();
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
