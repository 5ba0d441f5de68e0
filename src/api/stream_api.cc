// Stream entry points. A NULL stream means "blocking": synchronizing or
// querying it succeeds at once, as there is never anything queued on it.
#include "api/guard.h"
#include "api/handles.h"

using trnccl::throwInvalidArgument;
using trnccl::api::guarded;

extern "C" TRNCCL_API trncclResult_t trncclStreamCreate(trncclStream_t* stream) {
  return guarded("trncclStreamCreate", nullptr, [&] {
    if (stream == nullptr) throwInvalidArgument("stream", "is NULL");
    *stream = new trncclStream;
    trnccl::api::registerStream(*stream);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclStreamSynchronize(trncclStream_t stream) {
  trncclResult_t result = trncclSuccess;
  std::string message;
  trncclResult_t called = guarded("trncclStreamSynchronize", nullptr, [&] {
    if (auto* s = trnccl::api::streamOf(stream)) result = s->synchronize(&message);
  });
  if (called != trncclSuccess) return called;
  if (result != trncclSuccess) trnccl::api::setLastError(nullptr, message);
  return result;
}

extern "C" TRNCCL_API trncclResult_t trncclStreamQuery(trncclStream_t stream) {
  trncclResult_t result = trncclSuccess;
  trncclResult_t called = guarded("trncclStreamQuery", nullptr, [&] {
    if (auto* s = trnccl::api::streamOf(stream)) result = s->query();
  });
  return called != trncclSuccess ? called : result;
}

extern "C" TRNCCL_API trncclResult_t trncclStreamDestroy(trncclStream_t stream) {
  return guarded("trncclStreamDestroy", nullptr, [&] {
    if (stream == nullptr) throwInvalidArgument("stream", "is NULL");
    trnccl::api::streamOf(stream);  // must be live
    trnccl::api::unregisterStream(stream);
    delete stream;  // runs what is still queued first
  });
}
