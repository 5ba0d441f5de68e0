// Group entry points: trncclGroupStart/End fuse the calls between them (see
// core/group.h); trncclGroupSimulateEnd prices them instead of running them.
#include "api/guard.h"
#include "core/group.h"

using trnccl::throwInvalidArgument;
using trnccl::api::guarded;
namespace core = trnccl::core;

extern "C" TRNCCL_API trncclResult_t trncclGroupStart(void) {
  return guarded("trncclGroupStart", nullptr, [] { core::groupStart(); });
}

extern "C" TRNCCL_API trncclResult_t trncclGroupEnd(void) {
  return guarded("trncclGroupEnd", nullptr, [] { core::groupEnd(); });
}

extern "C" TRNCCL_API trncclResult_t trncclGroupSimulateEnd(trncclSimInfo_t* simInfo) {
  return guarded("trncclGroupSimulateEnd", nullptr, [&] {
    if (!simInfo) throwInvalidArgument("simInfo", "is NULL");
    if (simInfo->size != sizeof(trncclSimInfo_t) || simInfo->magic != TRNCCL_SIM_INFO_MAGIC)
      throwInvalidArgument("simInfo", "was not initialised with TRNCCL_SIM_INFO_INITIALIZER (size or magic differ)");
    simInfo->estimatedTime = static_cast<float>(core::groupSimulateEnd());
  });
}
