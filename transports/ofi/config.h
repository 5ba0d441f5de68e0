// Settings of the libfabric transport from the environment, and the protocol
// constants every rank must agree on.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "transports/ofi/fault_injection.h"

namespace trnccl::transport::ofi {

struct Config {
  // Endpoints (each with its own domain) a rank opens; large messages are
  // striped over all of them (TRNCCL_OFI_RAILS). Every rank must agree.
  int rails = 1;
  // Largest piece a message is split into on the wire (TRNCCL_OFI_CHUNK_BYTES,
  // further capped by the provider's max_msg_size). Every rank must agree.
  uint64_t chunkBytes = 1 << 20;
  // Operations one endpoint has posted to the provider at a time, per
  // direction (TRNCCL_OFI_MAX_OUTSTANDING, capped by the provider's queue
  // sizes); the rest wait in the transport's own queue.
  int maxOutstanding = 256;
  // Whether every message carries a CRC-32 the receiver checks
  // (TRNCCL_OFI_CHECKSUM). Auto: on for providers known to deliver corrupted
  // or misplaced bytes (ofi_rxd: libfabric 1.16 and 1.17, ofiwg/libfabric
  // issue 8212), off where the fabric checks its own (EFA, tcp). Every rank
  // must agree.
  enum class Checksums { Auto, On, Off } checksums = Checksums::Auto;
  // More than one rail: how long a chunk may wait on a rail that delivers
  // nothing, while the peer is heard from otherwise, before the rail is taken
  // as lost for that peer and its chunks move to the others
  // (TRNCCL_OFI_RAIL_STALL_MS).
  std::chrono::milliseconds railStall{1000};
  FaultConfig faults;  // TRNCCL_OFI_FAULTS (tests only)
};

inline constexpr int kMaxRails = 16;

// Throws Error(InvalidArgument) naming a variable whose value is not allowed.
Config readConfig();

// Payload bytes a message carries inside its control message (eager). Larger
// messages announce themselves and move only once the receiver has posted
// receives for them, so nothing larger is ever buffered unexpected.
inline constexpr size_t kControlBytes = 16 * 1024;
// Receives a rank keeps posted for each peer's control messages (wire.h):
// up to half the provider's receive queue, within these bounds.
inline constexpr size_t kMinControlReceives = 3, kMaxControlReceives = 8;
// Chunks of one message the receiver keeps posted at a time, per rail.
inline constexpr uint32_t kChunksInFlightPerRail = 4;
// How often a rank waiting on a peer checks that the peer is still alive.
inline constexpr std::chrono::milliseconds kLivenessInterval{50};
// A rail lost for a peer is tried again (one chunk on it) this many stall
// periods after it was lost, and after each further stall.
inline constexpr int kStallsBeforeRetry = 4;
// Closing lingers until every peer has closed too, or nothing has completed
// for this long: the acknowledgements a provider owes its peers go out while
// it is progressed.
inline constexpr std::chrono::milliseconds kQuietBeforeClose{250};

}  // namespace trnccl::transport::ofi
