// The objects behind the C API's opaque handles, and registries of the live
// ones, so that a destroyed or made-up handle is a clear error, not a crash.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "api/user_red_ops.h"
#include "core/communicator.h"
#include "runtime/stream.h"
#include "trnccl/trnccl.h"

struct trncclComm {
  std::unique_ptr<trnccl::core::Communicator> impl;
  std::mutex errorMutex;
  std::string lastError;
  trnccl::api::UserRedOps redOps;
  // The id trncclCommGetUniqueId made for a grow, kept on rank 0 until
  // trncclCommGrow takes it.
  std::mutex growMutex;
  std::optional<trncclUniqueId> growId;
};

struct trncclStream {
  trnccl::runtime::Stream impl;
};

namespace trnccl::api {

void registerComm(trncclComm_t comm);
bool isLive(trncclComm_t comm);
// Takes `comm` out of the registry (no call can hold it any more), waits
// until only the caller's own `callerHolds` remain, and deletes it: a call
// another thread is still inside (one an abort is ending) finishes first.
void retireComm(trncclComm_t comm, int callerHolds);

// A C entry point's hold on a live communicator handle for the length of the
// call, so that a destroy or abort from another thread cannot free it under
// the call. A handle that is not live is not held.
struct HoldList;
class CommHold {
 public:
  explicit CommHold(trncclComm_t comm);
  ~CommHold();
  CommHold(const CommHold&) = delete;
  CommHold& operator=(const CommHold&) = delete;

 private:
  HoldList* list_ = nullptr;  // this thread's, when held (its top entry)
};
// The communicator behind `comm`, which must be live (throws InvalidArgument
// naming `argument`).
core::Communicator& liveComm(trncclComm_t comm, const char* argument = "comm");
// As liveComm, and also not aborted nor failed (throws InvalidUsage).
core::Communicator& usableComm(trncclComm_t comm);

void registerStream(trncclStream_t stream);
void unregisterStream(trncclStream_t stream);
// NULL stays NULL (blocking); anything else must be a live stream.
runtime::Stream* streamOf(trncclStream_t stream, const char* argument = "stream");

}  // namespace trnccl::api
