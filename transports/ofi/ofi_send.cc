// The libfabric transport: sending messages, eagerly or chunk by chunk as the
// receiver asks for them.
#include <algorithm>
#include <cstring>

#include "transports/ofi/ofi_transport_internal.h"

namespace trnccl::transport::ofi {

void OfiTransport::isend(Request& request) {
  Peer& peer = peerOf(request, "send");
  const uint64_t chunks = request.bytes <= eagerLimit_ ? 0 : (request.bytes + chunkBytes_ - 1) / chunkBytes_;
  if (chunks > kMaxChunks)
    throwInvalidArgument("request.bytes",
                         "is " + std::to_string(request.bytes) + ", more than the libfabric transport can send in " +
                             std::to_string(kMaxChunks) + " chunks of " + std::to_string(chunkBytes_) + " bytes");
  request.done = false;
  request.transferred = 0;
  const uint64_t number = nextSend_++;
  OutgoingMessage& message = sends_[number];
  message.request = &request;
  message.peer = &peer;
  message.chunks = static_cast<uint32_t>(chunks);
  if (failsOver()) message.grantOf.assign(chunks, 0);
  ControlHeader header{};
  header.kind = chunks == 0 ? ControlKind::Eager : ControlKind::Rts;
  header.tag = request.tag;
  header.bytes = request.bytes;
  header.send = number;
  if (checksums_ && chunks > 0) header.dataChecksum = crc32Of(request.buffer, request.bytes);
  // Eager: the bytes are copied now, so the user's buffer is never read later.
  sendControl(peer, header, request.buffer, chunks == 0 ? request.bytes : 0, &message);
  ++peer.outstanding;
  pump();
}

void OfiTransport::onCts(Peer& peer, const ControlHeader& header) {
  auto entry = sends_.find(header.send);
  if (header.rail >= rails_.size()) {
    failPeer(peer, Error(trncclRemoteError, peer.name + " asked for chunks on rail " + std::to_string(header.rail) +
                                                " of " + std::to_string(rails_.size())));
    return;
  }
  const auto rail = static_cast<int>(header.rail);
  if (entry == sends_.end() || entry->second.peer != &peer) {
    // A send that was cancelled: tell the receive so on every chunk it posted.
    sendMarkers(peer, header.receive, header.first, header.count, rail);
    return;
  }
  OutgoingMessage& message = entry->second;
  if (uint64_t{header.first} + header.count > message.chunks) {
    failPeer(peer, Error(trncclRemoteError, peer.name + " asked for chunks " + std::to_string(header.first) + " to " +
                                                std::to_string(header.first + header.count - 1) + " of a message of " +
                                                std::to_string(message.chunks) + " chunks"));
    return;
  }
  auto* base = static_cast<std::byte*>(message.request->buffer);
  for (uint32_t chunk = header.first; chunk < header.first + header.count; ++chunk) {
    if (failsOver()) {
      // Control messages may arrive out of order: an older grant of a chunk
      // asked for again must not take it back to the rail it left.
      uint64_t& latest = message.grantOf[chunk];
      if (header.bytes <= latest) continue;
      if (latest != 0)
        forget(message, chunk);  // asked for again, on another rail
      else
        ++message.granted;
      latest = header.bytes;
    } else {
      ++message.granted;
    }
    Operation& op = pool_.take(OpKind::DataSend, rail, peer.rank);
    const uint64_t offset = uint64_t{chunk} * chunkBytes_;
    op.bytes = std::min(chunkBytes_, message.request->bytes - offset);
    if (failsOver()) {
      // A chunk asked for again leaves its earlier send with the provider,
      // which may read it whenever the lost link comes back, long after the
      // user has the buffer back: every chunk goes from a copy of its own.
      pool_.takeChunkBuffer(op, op.bytes);
      std::memcpy(op.buffer, base + offset, op.bytes);
    } else {
      op.buffer = base + offset;
    }
    op.tag = dataTag(header.receive, chunk);
    op.message = header.send;
    op.chunk = chunk;
    message.ops.push_back(&op);
    submit(op);
  }
}

// The chunk's earlier operation no longer counts.
void OfiTransport::forget(OutgoingMessage& message, uint32_t chunk) {
  auto earlier = std::find_if(message.ops.begin(), message.ops.end(), [chunk](const Operation* op) {
    return op->kind == OpKind::DataSend && op->chunk == chunk;
  });
  if (earlier == message.ops.end()) return;  // it completed (or failed) already
  Operation& op = **earlier;
  message.ops.erase(earlier);
  detach(op);
}

// A send's operation belongs to no message any more: posted, its completion
// only recycles it; queued, it is never posted.
void OfiTransport::detach(Operation& op) {
  op.message = 0;
  if (!op.posted) op.abandoned = true;
}

void OfiTransport::onDone(Peer& peer, const ControlHeader& header) {
  auto entry = sends_.find(header.send);
  if (entry == sends_.end() || entry->second.peer != &peer) return;  // cancelled meanwhile
  OutgoingMessage& message = entry->second;
  if (!failsOver() || message.chunks == 0 || message.granted < message.chunks) {
    failPeer(peer,
             Error(trncclRemoteError, peer.name + " said all of a message of " + std::to_string(message.chunks) +
                                          " chunks arrived, having asked for " + std::to_string(message.granted)));
    return;
  }
  // Every chunk arrived: operations still posted send copies nobody waits for.
  for (Operation* op : message.ops) detach(*op);
  complete(peer, *message.request, message.request->bytes);
  sends_.erase(entry);
}

void OfiTransport::sendMarkers(Peer& peer, uint64_t receive, uint32_t first, uint32_t count, int rail) {
  for (uint32_t chunk = first; chunk < first + count; ++chunk) {
    Operation& op = pool_.take(OpKind::DataSend, rail, peer.rank);
    op.tag = dataTag(receive, chunk);
    op.chunk = chunk;
    submit(op);
  }
}

void OfiTransport::onNack(Peer& peer, const ControlHeader& header) {
  auto entry = sends_.find(header.send);
  if (entry == sends_.end() || entry->second.peer != &peer) return;  // cancelled meanwhile
  const Request& request = *entry->second.request;
  // Its Rts may still be posted: it finds no message when it completes.
  sends_.erase(entry);
  failRequest(peer, trncclInvalidUsage,
              "rank " + std::to_string(rank_) + ": the message to " + peer.name + " (tag " +
                  std::to_string(request.tag) + ") has " + std::to_string(request.bytes) + " bytes, more than the " +
                  std::to_string(header.bytes) + " bytes of the receive posted for it");
}

void OfiTransport::onChunkSent(Operation& op) {
  Peer& peer = *peerOfRank_[static_cast<size_t>(op.peer)];
  if (op.draining) {
    op.draining = false;
    --peer.draining;
  }
  auto entry = sends_.find(op.message);
  if (op.message != 0 && entry != sends_.end()) {
    OutgoingMessage& message = entry->second;
    std::erase(message.ops, &op);
    // More than one rail: the receiver's Done completes the send.
    if (!failsOver() && ++message.finished == message.chunks) {
      complete(peer, *message.request, message.request->bytes);
      sends_.erase(entry);
    }
  }
  pool_.give(op);
}

}  // namespace trnccl::transport::ofi
