// Timed emulation of modelled links (Options::emulation): every message is
// held back until the modelled machine would have delivered it.
//
// The job's links live on one shared "link board" segment (created by rank 0
// at setup, mapped by every rank, unlinked with the other segments): per link,
// the CLOCK_MONOTONIC time until which it is busy. Sending reserves the
// message's whole path at once, each link on its own:
//
//   each link on the path is busy until
//     max(now, its busy-until) + (bytes / its bandwidth) * scale
//     (the first link also for the message's issue time: its sender's DMA
//     engines issue it)
//   end   = the latest of those
//   due   = end + latency * scale
//
// so messages of any ranks that share a link queue behind each other, and a
// fast link (a chip's DMA engines) that feeds several slower ones carries
// its messages one after another at its own rate, not waiting while one of
// them waits for its slower link (an empty message pays latency and its
// issue time only). The
// reservation is a few loads and stores under a robust process-shared mutex:
// the board stays consistent whichever rank dies, and a rank that finds the
// mutex taken sleeps in the kernel rather than spin.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "transports/shm/segment.h"
#include "transports/transport.h"

namespace trnccl::transport::shm {

// CLOCK_MONOTONIC in nanoseconds: one clock for every process of the host.
uint64_t monotonicNs();

// Throws Error(InvalidArgument) naming the field of `emulation` that is not
// usable by a job of `nranks` ranks. Only call it when emulation is on.
void validateEmulation(const LinkEmulation& emulation, int nranks);

// The board's layout: a header, then one busy-until time per link.
struct LinkBoard {
  static constexpr uint64_t kMagic = 0x6472616f626b6e6cULL;  // "lnkboard"
  struct alignas(64) Header {
    uint64_t magic;
    uint32_t links;
    pthread_mutex_t lock;
  };
  static uint64_t bytes(uint32_t links) { return sizeof(Header) + uint64_t{8} * links; }
  // By the rank that created the (zero-filled) segment, before anyone maps it.
  static void initialize(std::byte* segment, uint32_t links);
  // Throws Error(SystemError) unless `segment` is a board of `links` links.
  static void check(const std::byte* segment, uint32_t links, const std::string& name);
};

class LinkPacer {
 public:
  // `board`: a mapping of the job's board (LinkBoard::check'ed).
  LinkPacer(Segment board, const LinkEmulation& emulation);

  // Reserves the path to `peer` for a message of `bytes` (and its issue time
  // when `issued`: not for the later slices of a message), starting now at
  // the earliest; returns when the message may be delivered (monotonicNs()).
  uint64_t reserve(int peer, uint64_t bytes, bool issued = true);

 private:
  struct Route {
    std::vector<uint32_t> links;
    std::vector<double> linkNsPerByte;  // per link of `links`, scaled
    uint64_t latencyNs = 0;             // scaled
    uint64_t issueNs = 0;               // scaled
  };
  Segment board_;
  LinkBoard::Header* header_;
  uint64_t* busyUntil_;
  std::vector<Route> routes_;  // per peer rank
};

}  // namespace trnccl::transport::shm
