#include "api/guard.h"

extern "C" TRNCCL_API trncclResult_t trncclGetVersion(int* version) {
  return trnccl::api::guarded("trncclGetVersion", nullptr, [&] {
    if (version == nullptr) trnccl::throwInvalidArgument("version", "is NULL");
    *version = TRNCCL_VERSION;
  });
}
