#include "transports/ofi/config.h"

#include "base/env.h"

namespace trnccl::transport::ofi {

Config readConfig() {
  Config config;
  config.rails = static_cast<int>(env::getInt("TRNCCL_OFI_RAILS", 1, 1, kMaxRails));
  // At least a control message's worth, so that every announced message
  // (larger than one) has whole chunks; at most what a chunk index can span.
  config.chunkBytes =
      static_cast<uint64_t>(env::getInt("TRNCCL_OFI_CHUNK_BYTES", int64_t{1} << 20, kControlBytes, int64_t{1} << 30));
  config.maxOutstanding = static_cast<int>(env::getInt("TRNCCL_OFI_MAX_OUTSTANDING", 256, 8, 1 << 16));
  if (auto faults = env::get("TRNCCL_OFI_FAULTS")) config.faults = parseFaults(*faults);
  return config;
}

}  // namespace trnccl::transport::ofi
