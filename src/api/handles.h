// The objects behind the C API's opaque handles, and registries of the live
// ones, so that a destroyed or made-up handle is a clear error, not a crash.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "core/communicator.h"
#include "runtime/stream.h"
#include "trnccl/trnccl.h"

struct trncclComm {
  std::unique_ptr<trnccl::core::Communicator> impl;
  std::mutex errorMutex;
  std::string lastError;
};

struct trncclStream {
  trnccl::runtime::Stream impl;
};

namespace trnccl::api {

void registerComm(trncclComm_t comm);
void unregisterComm(trncclComm_t comm);
bool isLive(trncclComm_t comm);
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
