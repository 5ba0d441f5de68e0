// What each rank tells every other at setup, through the out-of-band
// all-gather: its endpoints' addresses, the settings all ranks must share,
// and who it is on its host (so a peer on the same host can tell whether its
// process is still alive, the way the shared-memory transport does).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "transports/ofi/config.h"
#include "transports/ofi/rail.h"

namespace trnccl::transport::ofi {

inline constexpr size_t kMaxAddressBytes = 64;

struct RankCard {
  uint32_t magic;
  uint32_t rails;
  uint32_t controlReceives;  // per peer: the credits a peer starts with (wire.h)
  uint32_t checksums;        // 1: messages carry CRC-32s (wire.h)
  char provider[32];
  uint64_t chunkBytes;
  uint64_t hostId;  // same value: same host and pid namespace
  int64_t pid;
  uint32_t addressBytes[kMaxRails];
  uint8_t addresses[kMaxRails][kMaxAddressBytes];

  Address address(int rail) const;
};

// `addresses`: one per rail. Throws Error(SystemError) if one does not fit.
RankCard makeCard(const std::string& provider, const std::vector<Address>& addresses, uint64_t chunkBytes,
                  uint32_t controlReceives, bool checksums);

// Throws Error(InvalidUsage) naming the variable behind a setting that ranks
// disagree on (provider, rails, chunk size, checksums), and the ranks.
void checkAgreement(const std::vector<RankCard>& cards);

// This host (boot id) and pid namespace.
uint64_t thisHostId();

}  // namespace trnccl::transport::ofi
