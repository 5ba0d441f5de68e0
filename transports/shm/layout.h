// What a rank's shared segment holds. Its size is bounded and known before it
// is created: a page of header plus, for each peer, one FIFO of
// `slots x (64 + slotBytes)` bytes (default 8 x 64 KiB, about 512 KiB per peer)
// and one table of announcements (512 bytes):
//
//   [0, 64)        SegmentHeader
//   [64, 128)      DoorbellWord: the owner sleeps on it, everyone rings it
//   [128, ...)     int32 fifoOfRank[nranks]: 1 + the index of that rank's
//                  FIFO, 0 when that rank is not a peer
//   page-aligned   fifoCount FIFOs, each written by one peer (fifo.h)
//   then           fifoCount announcement tables: the owner's announced sends
//                  to the peer whose FIFO has the same index (announcement.h)
//   line-aligned   the owner's two block-board buffers (block_board.h)
#pragma once

#include <cstdint>
#include <optional>

#include "transports/shm/announcement.h"
#include "transports/shm/block_board.h"
#include "transports/shm/doorbell.h"
#include "transports/shm/fifo.h"

namespace trnccl::transport::shm {

inline constexpr uint64_t kSegmentMagic = 0x6d68732d6c63636eULL;  // "nccl-shm"
inline constexpr uint32_t kSegmentVersion = 3;

struct SegmentHeader {
  uint64_t magic;
  uint32_t version;
  int32_t rank;
  int32_t nranks;
  uint32_t fifoCount;
  uint32_t closed;  // set by the owner when its transport goes away
};

struct SegmentLayout {
  static constexpr uint64_t kDoorbellOffset = 64;
  static constexpr uint64_t kFifoTableOffset = 128;
  static constexpr uint64_t kPageBytes = 4096;

  int nranks = 0;
  uint32_t fifoCount = 0;
  FifoGeometry fifo;

  uint64_t fifoOffset(uint32_t index) const {
    const uint64_t table = kFifoTableOffset + uint64_t{4} * static_cast<uint64_t>(nranks);
    return (table + kPageBytes - 1) / kPageBytes * kPageBytes + index * fifo.bytes();
  }
  uint64_t announcementTableOffset(uint32_t index) const {
    return fifoOffset(fifoCount) + index * kAnnouncementTableBytes;
  }
  uint64_t boardOffset() const { return (announcementTableOffset(fifoCount) + 63) / 64 * 64; }
  // The whole segment; nullopt if that does not fit in 64 bits.
  std::optional<uint64_t> bytes() const {
    uint64_t fifos = 0, withFifos = 0, withTables = 0, total = 0;
    if (__builtin_mul_overflow(uint64_t{fifoCount}, fifo.bytes(), &fifos) ||
        __builtin_add_overflow(fifoOffset(0), fifos, &withFifos) ||
        __builtin_add_overflow(withFifos, fifoCount * kAnnouncementTableBytes, &withTables) ||
        __builtin_add_overflow((withTables + 63) / 64 * 64, kBoardBytes, &total))
      return std::nullopt;
    return total;
  }
};

static_assert(sizeof(SegmentHeader) <= SegmentLayout::kDoorbellOffset);
static_assert(sizeof(DoorbellWord) <= SegmentLayout::kFifoTableOffset - SegmentLayout::kDoorbellOffset);

}  // namespace trnccl::transport::shm
