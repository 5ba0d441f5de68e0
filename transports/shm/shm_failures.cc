// The shared-memory transport: protocol errors, failed requests and peers
// that left.
#include "transports/shm/shm_transport_internal.h"

namespace trnccl::transport::shm {

void ShmTransport::protocolError(const Peer& peer, const std::string& what) const {
  throwError(trncclRemoteError,
             who(peer) + " broke the shared-memory protocol with rank " + std::to_string(rank_) + ": it sent " + what);
}

void ShmTransport::fail(trncclResult_t code, const std::string& message) {
  if (!pendingError_) pendingError_ = std::make_exception_ptr(Error(code, message));
}

bool ShmTransport::hasOutstanding(const Peer& peer) const {
  return !peer.paced.empty() || !peer.outbox.empty() || !peer.awaitingReply.empty() || !peer.posted.empty() ||
         std::any_of(peer.incoming.begin(), peer.incoming.end(),
                     [](const auto& entry) { return entry.second.state == Incoming::State::Receiving; }) ||
         std::any_of(pulls_.begin(), pulls_.end(), [&peer](const Pull& pull) { return pull.peer == &peer; });
}

void ShmTransport::noticeDepartures() {
  // Reading the clock costs more than a small message's whole path: look at
  // it every 64 calls, or after this rank slept.
  if ((++progressCalls_ & 63) != 0 && !slept_) return;
  slept_ = false;
  const auto now = std::chrono::steady_clock::now();
  if (now - lastLivenessCheck_ < kLivenessInterval) return;
  lastLivenessCheck_ = now;
  for (Peer& peer : peers_) {
    if (!peer.gone.empty() || !hasOutstanding(peer)) continue;
    if (const char* how = howGone(peer))
      peer.gone = who(peer) + how + " while rank " + std::to_string(rank_) + " still had requests outstanding with it";
  }
}

const char* ShmTransport::howGone(const Peer& peer) const {
  if (peer.link.process.hasExited()) return " exited";
  if (std::atomic_ref<uint32_t>(*peer.link.closed).load(std::memory_order_acquire) != 0)
    return " closed its shared-memory transport";
  return nullptr;
}

std::vector<std::string> ShmTransport::departures() {
  std::vector<std::string> gone;
  for (const Peer& peer : peers_)
    if (const char* how = howGone(peer)) gone.push_back(who(peer) + how);
  return gone;
}

MemoryUse ShmTransport::memoryUse() const {
  MemoryUse use;
  use.sharedBytes = connections_.ownReservedBytes + committedBytes_;
  use.peersWithBuffers = static_cast<int>(
      std::count_if(peers_.begin(), peers_.end(), [](const Peer& p) { return p.link.toPeerCommitted; }));
  for (const Peer& peer : peers_) use.mappedPeerBytes += peer.files.mappedBytes();
  return use;
}

// Shared memory has no rails to lose: one, always up.
std::vector<RailStatus> ShmTransport::railStatus() const {
  RailStatus rail;
  rail.name = "shm";
  rail.bytesSent = bytesSent_.get();
  rail.bytesReceived = bytesReceived_.get();
  return {rail};
}

std::string ShmTransport::who(const Peer& peer) const {
  return "rank " + std::to_string(peer.link.rank) + " (pid " + std::to_string(peer.link.process.pid()) + ")";
}

}  // namespace trnccl::transport::shm
