// trncclSetEncryption: the key of the sockets trnccl owns (base/encryption.h).
#include "api/guard.h"
#include "base/encryption.h"
#include "base/error.h"

using trnccl::throwInvalidArgument;
using trnccl::api::guarded;

extern "C" TRNCCL_API trncclResult_t trncclSetEncryption(const void* key, size_t keyBytes) {
  return guarded("trncclSetEncryption", nullptr, [&] {
    if (key == nullptr && keyBytes != 0)
      throwInvalidArgument("key", "is NULL with keyBytes " + std::to_string(keyBytes));
    if (key != nullptr && keyBytes == 0)
      throwInvalidArgument("keyBytes", "is 0 with a key (key NULL and keyBytes 0 turn encryption off)");
    trnccl::encryption::setKey({static_cast<const uint8_t*>(key), keyBytes});
  });
}
