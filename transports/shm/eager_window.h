// How far a sender may run ahead of its receiver with eager messages.
//
// An eager send completes once it is in the FIFO, and the receiver drains its
// FIFOs into its early pool whether or not the receives are posted. So a rank
// that only sends (a gather's non-root, a scatter's root) ran ahead of its
// receiver without bound: every message was copied twice on the receiver
// (FIFO -> early buffer -> receive), the early pool grew with the lag, and
// each match scanned a longer pool (a 16 KiB gather on 2 ranks took 7 us
// where announcing its blocks took 2). MPI's shared-memory transports bound
// this with a small eager limit; here the bound is on the lag itself: the
// sender counts the eager messages and bytes it wrote, the receiver counts
// those it delivered (fifo.h: Deliveries), and a message that would leave
// more than kWindowMessages or kWindowBytes undelivered is announced instead
// (a rendezvous: it waits for its receive). Senders whose receives are posted
// in time, as in a pipelined ring, never meet the bound.
#pragma once

#include <cstdint>

#include "transports/shm/fifo.h"

namespace trnccl::transport::shm {

class EagerWindow {
 public:
  static constexpr uint64_t kWindowMessages = 16;
  static constexpr uint64_t kWindowBytes = 256 * 1024;  // half the default FIFO

  // Whether a `bytes`-byte message may go eager now. Reads the receiver's
  // count only when the counts kept here no longer admit it. Throws
  // Error(trncclRemoteError) when the receiver claims more than was sent.
  bool admits(uint64_t bytes, const FifoWriter& fifo, int peer);
  // An eager message of `bytes` was written.
  void sent(uint64_t bytes) {
    ++sent_.messages;
    sent_.bytes += bytes;
  }

 private:
  bool fits(uint64_t bytes) const {
    return sent_.messages - delivered_.messages < kWindowMessages &&
           sent_.bytes - delivered_.bytes + bytes <= kWindowBytes;
  }

  Deliveries sent_;
  Deliveries delivered_;  // as last read from the receiver
};

}  // namespace trnccl::transport::shm
