// The shared-memory transport's block board (transport.h: BlockBoard; the
// format is block_board.h).
#include "transports/shm/shm_transport_internal.h"

namespace trnccl::transport::shm {

namespace {

void checkBlockBytes(size_t bytes) {
  if (bytes > kBoardBlockBytes)
    throwInvalidArgument("bytes",
                         "is " + std::to_string(bytes) + "; a block holds at most " + std::to_string(kBoardBlockBytes));
}

}  // namespace

void* ShmTransport::ownBlock(uint64_t call, size_t bytes) {
  checkBlockBytes(bytes);
  return connections_.board.block(call, bytes);
}

void ShmTransport::publish(uint64_t call, size_t bytes) {
  checkBlockBytes(bytes);
  connections_.board.publish(call, bytes);
}

void ShmTransport::wakePeers() {
  Doorbell::fenceBeforeRinging();  // one fence for every peer's doorbell
  for (Peer& peer : peers_) peer.link.doorbell.ringIfSleepingFenced();
}

const void* ShmTransport::peerBlock(int rank, uint64_t call, size_t bytes) {
  const Peer* found = peerAt(rank);
  if (found == nullptr)
    throwInvalidArgument("rank",
                         "is " + std::to_string(rank) + ", not a shared-memory peer of rank " + std::to_string(rank_));
  const Peer& peer = *found;
  if (const std::byte* block = peer.link.board.block(call, bytes)) {
    if (rank == awaitedRank_) awaitedRank_ = -1;  // or wait() would never sleep again
    return block;
  }
  awaitedRank_ = rank;
  awaitedCall_ = call;
  // A peer that left never publishes. Reading the clock costs more than a
  // small block's whole trip: look every 64 misses.
  if ((++boardMisses_ & 63) == 0) {
    const auto now = std::chrono::steady_clock::now();
    if (now - lastLivenessCheck_ >= kLivenessInterval) {
      lastLivenessCheck_ = now;
      if (const char* how = howGone(peer))
        throwError(trncclRemoteError, who(peer) + how + " while rank " + std::to_string(rank_) +
                                          " waited for its block of call " + std::to_string(call));
    }
  }
  return nullptr;
}

}  // namespace trnccl::transport::shm
