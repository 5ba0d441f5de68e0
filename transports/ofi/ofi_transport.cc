// The libfabric transport: receives, progress and cancelling. See
// ofi_transport_internal.h for how it works.
#include "transports/ofi/ofi_transport.h"

#include <algorithm>

#include "transports/ofi/ofi_transport_internal.h"
#include "transports/registration.h"

namespace trnccl::transport::ofi {

std::string OfiTransport::description() const {
  return "ofi (" + provider_ + ", " + std::to_string(rails_.size()) + (rails_.size() == 1 ? " rail)" : " rails)");
}

void OfiTransport::irecv(Request& request) {
  Peer& peer = peerOf(request, "receive");
  if (peer.posted.contains(request.tag) || peer.receiving.contains(request.tag))
    throwError(trncclInvalidUsage, "rank " + std::to_string(rank_) + " posted a second receive from rank " +
                                       std::to_string(peer.rank) + " (tag " + std::to_string(request.tag) +
                                       ") while the first is pending: tags must be unique among the messages in "
                                       "flight between two ranks");
  request.done = false;
  request.transferred = 0;
  ++peer.outstanding;
  if (auto arrived = peer.unexpected.find(request.tag); arrived != peer.unexpected.end()) {
    const Announcement announcement = std::move(arrived->second);
    peer.unexpected.erase(arrived);
    match(peer, request, announcement, announcement.payload.data());
  } else {
    peer.posted.emplace(request.tag, &request);
  }
  pump();
}

void OfiTransport::progress() {
  poll();
  watchRails();
  pump();
  checkLiveness(false);
  throwPending();
}

void OfiTransport::cancelAll() {
  for (Peer& peer : peers_) {
    peer.posted.clear();
    peer.receiving.clear();
    peer.outstanding = 0;
  }
  for (auto& [number, message] : sends_) {
    for (Operation* op : message.ops) {
      op->message = 0;  // its completion belongs to no message now
      if (op->posted) {
        // A posted chunk reads the user's buffer until it completes, which
        // it does: its receive is posted. Over several rails it reads a copy,
        // but is still waited for: a provider that progresses in software
        // (rxd) finishes the receiver's side only while the sender progresses.
        if (op->kind == OpKind::DataSend) {
          op->draining = true;
          ++message.peer->draining;
        }
      } else if (op->kind == OpKind::DataSend) {
        // Promised to the receiver: it still goes, as an empty marker.
        rails_[static_cast<size_t>(op->rail)]->release(op->lease);
        op->buffer = nullptr;
        op->bytes = 0;
      } else if (op->awaitingCredit && !op->kept) {
        op->abandoned = true;  // its Eager or Rts never leaves
      }                        // else it holds a credit (and returns some): it goes, and is answered as a stale one
    }
  }
  sends_.clear();
  for (Operation* done : dones_) done->request = nullptr;  // it still goes: the peer's send waits for it
  dones_.clear();
  for (auto& [number, message] : receives_) {
    if (message.request == nullptr) continue;
    message.request = nullptr;
    message.newlyPosted.clear();
    for (Operation* op : message.ops) {
      if (!op->posted) {
        op->abandoned = true;  // never posted, so never promised
      } else if (op->buffer != sink_.data()) {
        rails_[static_cast<size_t>(op->rail)]->cancel(&op->context);
        op->draining = true;
        ++message.peer->draining;
      }
    }
    std::erase_if(message.ops, [](const Operation* op) { return op->abandoned; });
  }
  std::erase_if(receives_, [](const auto& entry) { return entry.second.ops.empty(); });
  granting_.clear();
  waitForCancelled();
  pendingError_ = nullptr;
}

FaultStats OfiTransport::faultStats() const { return faults_ ? faults_->stats() : FaultStats{}; }

}  // namespace trnccl::transport::ofi

namespace trnccl::transport {

std::unique_ptr<Transport> createOfiTransport(const Options& options) {
  return std::make_unique<ofi::OfiTransport>(options, ofi::readConfig());
}

// Between instances ofi (EFA) comes first; the tests and benchmarks run it
// over the providers Debian ships: udp;ofi_rxd is the closest to EFA's
// reliable unordered datagrams, shm stays within a host.
TRNCCL_REGISTER_TRANSPORT(ofi, {"ofi",
                                createOfiTransport,
                                Reach::Network,
                                0,
                                {.pathSetting = "TRNCCL_OFI_PROVIDER",
                                 // rxd: libfabric 1.16-1.17 (ofiwg/libfabric#8212); checksums catch it
                                 .paths = {{"tcp;ofi_rxm", true}, {"udp;ofi_rxd", true, false}, {"shm", false}},
                                 .rails = true,
                                 .registration = false}})

}  // namespace trnccl::transport
