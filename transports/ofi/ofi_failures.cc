// The libfabric transport: requests' ends, failed peers, peers that exited or
// closed, and waiting for cancelled operations.
#include <algorithm>
#include <utility>

#include "base/backoff.h"
#include "base/log.h"
#include "transports/ofi/ofi_transport_internal.h"

namespace trnccl::transport::ofi {

Peer& OfiTransport::peerOf(const Request& request, const char* operation) {
  if (request.peer < 0 || static_cast<size_t>(request.peer) >= peerOfRank_.size() ||
      peerOfRank_[static_cast<size_t>(request.peer)] == nullptr)
    throwInvalidArgument("request.peer", "is " + std::to_string(request.peer) + ", not a libfabric peer of rank " +
                                             std::to_string(rank_) + " (" + operation + ")");
  if (request.buffer == nullptr && request.bytes > 0)
    throwInvalidArgument("request.buffer", std::string("is NULL for a non-empty ") + operation);
  return *peerOfRank_[static_cast<size_t>(request.peer)];
}

void OfiTransport::complete(Peer& peer, Request& request, size_t bytes) {
  request.transferred = bytes;
  request.done = true;
  --peer.outstanding;
}

void OfiTransport::failRequest(Peer& peer, trncclResult_t code, const std::string& message) {
  --peer.outstanding;
  if (!pendingError_) pendingError_ = std::make_exception_ptr(Error(code, message));
}

void OfiTransport::failPeer(Peer& peer, const Error& error) {
  if (peer.failure) return;
  peer.failure = error;
  TRNCCL_WARN("ofi: rank %d: %s", rank_, error.what());
}

void OfiTransport::checkLiveness(bool everyPeer) {
  const auto now = std::chrono::steady_clock::now();
  if (now - lastLivenessCheck_ < kLivenessInterval) return;
  lastLivenessCheck_ = now;
  for (Peer& peer : peers_) {
    if (peer.failure || (!everyPeer && peer.outstanding == 0 && peer.draining == 0)) continue;
    if (!peer.process.hasExited()) continue;
    if (peer.outstanding > 0 || peer.draining > 0)
      failPeer(peer, Error(trncclRemoteError, peer.name + " exited while rank " + std::to_string(rank_) +
                                                  " still had requests outstanding with it"));
    else  // closing
      failPeer(peer, Error(trncclRemoteError, peer.name + " exited before its goodbye arrived"));
  }
}

std::vector<std::string> OfiTransport::departures() {
  std::vector<std::string> gone;
  for (const Peer& peer : peers_) {
    if (peer.process.hasExited())
      gone.push_back(peer.name + " exited");
    else if (peer.failure)
      gone.push_back(peer.failure->what());
    else if (peer.closed())
      gone.push_back(peer.name + " closed its libfabric transport");
  }
  return gone;
}

MemoryUse OfiTransport::memoryUse() const {
  MemoryUse use;
  use.peersWithBuffers = static_cast<int>(peers_.size());  // control receives posted for every peer at setup
  use.hostBytes = sink_.capacity() + pool_.storageBytes();
  for (const auto& rail : rails_) use.registeredBytes += rail->registeredBytes();
  return use;
}

std::vector<RailStatus> OfiTransport::railStatus() const {
  std::vector<RailStatus> status;
  for (size_t r = 0; r < rails_.size(); ++r) {
    RailStatus rail;
    rail.name = rails_[r]->domainName();
    rail.bytesSent = queues_[r].bytesSent.get();
    rail.bytesReceived = queues_[r].bytesReceived.get();
    rail.up = queues_[r].lostPeers.get() == 0;
    rail.failovers = static_cast<uint32_t>(queues_[r].failovers.get());
    status.push_back(rail);
  }
  return status;
}

bool OfiTransport::blockedByClose(const Peer& peer) const {
  // Only sends whose every chunk the peer asked for can still complete.
  if (!peer.posted.empty() || !peer.receiving.empty()) return true;
  return std::any_of(sends_.begin(), sends_.end(), [&peer](const auto& entry) {
    const OutgoingMessage& m = entry.second;
    return m.peer == &peer && m.chunks > 0 && m.granted < m.chunks;
  });
}

void OfiTransport::throwPending() {
  if (pendingError_) std::rethrow_exception(std::exchange(pendingError_, nullptr));
  for (const Peer& peer : peers_) {
    if (peer.outstanding == 0) continue;
    if (peer.failure) throw *peer.failure;
    if (peer.closed() && blockedByClose(peer))
      throwError(trncclRemoteError, peer.name + " closed its libfabric transport while rank " + std::to_string(rank_) +
                                        " still had requests outstanding with it");
  }
}

void OfiTransport::waitForCancelled() {
  // A reachable peer completes a cancelled send within a few round trips
  // (its receive is posted). Cancelling mostly follows a call that already
  // waited a whole timeout for a peer, so a peer that stays silent for a
  // quarter of another is taken as unreachable: it fails, and closing the
  // transport does not wait for it again.
  const auto grace = timeout_ / 4;
  const auto start = std::chrono::steady_clock::now();
  Backoff backoff;
  auto waiting = [this] {
    return std::any_of(peers_.begin(), peers_.end(), [](const Peer& p) { return p.draining > 0 && !p.failure; });
  };
  try {
    while (waiting()) {
      poll();
      pump();
      checkLiveness(false);
      if (std::chrono::steady_clock::now() - start > grace) {
        for (Peer& peer : peers_)
          if (peer.draining > 0)
            failPeer(peer, Error(trncclRemoteError, peer.name + " is unreachable: " + std::to_string(peer.draining) +
                                                        " chunk sends and receives that rank " + std::to_string(rank_) +
                                                        " cancelled did not complete in " +
                                                        std::to_string(grace.count()) + " ms"));
        return;
      }
      backoff.pause([this](std::chrono::microseconds maxWait) { wait(maxWait); });
    }
  } catch (const std::exception& e) {
    TRNCCL_WARN("ofi: rank %d: while cancelling: %s", rank_, e.what());
  }
}

}  // namespace trnccl::transport::ofi
