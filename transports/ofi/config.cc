#include "transports/ofi/config.h"

#include "base/settings.h"

namespace trnccl::transport::ofi {
namespace {

TRNCCL_SETTING(kRails, TRNCCL_OFI_RAILS, settings::integer(1, 1, kMaxRails),
               "endpoints per rank; large messages are striped over them (EFA NICs)");
// At least a control message's worth, so that every announced message
// (larger than one) has whole chunks; at most what a chunk index can span.
TRNCCL_SETTING(kChunkBytes, TRNCCL_OFI_CHUNK_BYTES,
               settings::integer(int64_t{1} << 20, kControlBytes, int64_t{1} << 30, "bytes"),
               "largest piece of a message on the wire");
TRNCCL_SETTING(kMaxOutstanding, TRNCCL_OFI_MAX_OUTSTANDING, settings::integer(256, 8, 1 << 16),
               "operations posted to the provider per endpoint and direction");
TRNCCL_SETTING(kChecksum, TRNCCL_OFI_CHECKSUM, settings::choice("auto, 1, 0", "auto"),
               "a CRC-32 on every message, checked on arrival (auto: on for udp;ofi_rxd, which corrupts data)");
TRNCCL_SETTING(kRailStallMs, TRNCCL_OFI_RAIL_STALL_MS, settings::integer(Config{}.railStall.count(), 10, 3600000),
               "ms a chunk may wait on an ofi rail that delivers nothing before its chunks move to the other rails");
TRNCCL_SETTING(kFaults, TRNCCL_OFI_FAULTS, settings::text("`delay=US:reorder:corrupt=N`, ...", "none"),
               "tests only: delay and reorder completions, flip bytes (`corrupt=N`)");

}  // namespace

Config readConfig() {
  Config config;
  config.rails = static_cast<int>(settings::readInt(kRails));
  config.chunkBytes = static_cast<uint64_t>(settings::readInt(kChunkBytes));
  config.maxOutstanding = static_cast<int>(settings::readInt(kMaxOutstanding));
  const std::string checksum = settings::readChoice(kChecksum);
  config.checksums = checksum == "1"   ? Config::Checksums::On
                     : checksum == "0" ? Config::Checksums::Off
                                       : Config::Checksums::Auto;
  config.railStall = std::chrono::milliseconds(settings::readInt(kRailStallMs));
  if (auto faults = settings::readText(kFaults)) config.faults = parseFaults(*faults);
  return config;
}

}  // namespace trnccl::transport::ofi
