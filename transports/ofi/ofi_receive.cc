// The libfabric transport: control messages, matching announcements with
// receives, and filling receives chunk by chunk.
#include <algorithm>
#include <cstring>

#include "transports/ofi/ofi_transport_internal.h"

namespace trnccl::transport::ofi {

void OfiTransport::onControl(Peer& peer, const std::byte* data, size_t length, int rail) {
  const ControlHeader& header = parseControl(data, length, eagerLimit_, checksums_);
  peer.heardAt = Clock::now();
  // A rail that carries control messages is no dead link, only slow; a lost
  // one is back only once a chunk comes over it again (heardOnRail).
  if (failsOver()) {
    peer.rails[static_cast<size_t>(rail)].lastArrival = peer.heardAt;
    onAcked(peer, header.acked);
  }
  switch (header.kind) {
    case ControlKind::Ping:
      sendPing(peer, rail, ControlKind::Pong);
      return;
    case ControlKind::Pong:
      onPong(peer, rail);
      return;
    default:
      break;
  }
  peer.controlArrivals = static_cast<size_t>(rail);
  if (failsOver() && header.kind != ControlKind::Bye && !firstCopy(peer, header)) return;  // acted on already
  if (header.creditRail >= peer.control.size())
    throwError(trncclRemoteError, "returned credits for rail " + std::to_string(header.creditRail) + " of " +
                                      std::to_string(peer.control.size()));
  ControlRail& credited = peer.control[header.creditRail];
  if (header.credits > peer.maxCredits - credited.credits)
    throwError(trncclRemoteError, "returned " + std::to_string(header.credits) + " credits while holding " +
                                      std::to_string(credited.credits) + " of " + std::to_string(peer.maxCredits));
  credited.credits += header.credits;
  if (header.kind == ControlKind::Bye) {
    peer.byeAfter = header.bytes;
    return;
  }
  if (!failsOver()) ++peer.controlReceived;
  switch (header.kind) {
    case ControlKind::Eager:
    case ControlKind::Rts:
      onAnnouncement(peer, header, data + sizeof header);
      return;
    case ControlKind::Cts:
      onCts(peer, header);
      return;
    case ControlKind::Nack:
      onNack(peer, header);
      return;
    case ControlKind::Done:
      onDone(peer, header);
      return;
    case ControlKind::Credit:
    case ControlKind::Bye:
    case ControlKind::Ping:
    case ControlKind::Pong:
      return;
  }
}

// Over several rails: whether this is the first copy of a numbered message,
// counting it among those had.
bool OfiTransport::firstCopy(Peer& peer, const ControlHeader& header) {
  const uint64_t seq = header.seq;
  if (seq == 0) throwError(trncclRemoteError, "sent a control message without a number");
  if (seq <= peer.controlReceived || peer.receivedAhead.contains(seq)) return false;
  if (seq != peer.controlReceived + 1) {
    peer.receivedAhead.insert(seq);
    return true;
  }
  ++peer.controlReceived;
  while (!peer.receivedAhead.empty() && *peer.receivedAhead.begin() == peer.controlReceived + 1) {
    peer.receivedAhead.erase(peer.receivedAhead.begin());
    ++peer.controlReceived;
  }
  return true;
}

void OfiTransport::onAnnouncement(Peer& peer, const ControlHeader& header, const std::byte* payload) {
  Announcement arrived{header.kind, header.send, header.bytes, header.dataChecksum, {}};
  if (auto posted = peer.posted.find(header.tag); posted != peer.posted.end()) {
    Request& receive = *posted->second;
    peer.posted.erase(posted);
    match(peer, receive, arrived, payload);
    return;
  }
  if (header.kind == ControlKind::Eager) arrived.payload.assign(payload, payload + header.bytes);
  // Two announcements with one tag: the older was cancelled (tags are unique
  // among messages in flight), whichever arrives first.
  auto [entry, inserted] = peer.unexpected.try_emplace(header.tag, std::move(arrived));
  if (!inserted && entry->second.send < header.send) entry->second = std::move(arrived);
}

void OfiTransport::match(Peer& peer, Request& receive, const Announcement& announced, const std::byte* payload) {
  const uint64_t bytes = announced.bytes;
  if (bytes > receive.bytes) {
    if (announced.kind == ControlKind::Rts) {
      ControlHeader nack{};
      nack.kind = ControlKind::Nack;
      nack.send = announced.send;
      nack.bytes = receive.bytes;
      sendControl(peer, nack);
    }
    failRequest(peer, trncclInvalidUsage,
                "rank " + std::to_string(rank_) + ": the message from " + peer.name + " (tag " +
                    std::to_string(receive.tag) + ") has " + std::to_string(bytes) + " bytes, more than the " +
                    std::to_string(receive.bytes) + " bytes of the receive posted for it");
    return;
  }
  if (announced.kind == ControlKind::Eager) {
    if (bytes > 0) std::memcpy(receive.buffer, payload, bytes);
    complete(peer, receive, bytes);
    return;
  }
  const uint64_t number = nextReceive_++;
  const auto chunks = static_cast<uint32_t>((bytes + chunkBytes_ - 1) / chunkBytes_);
  IncomingMessage& message = receives_[number];
  message.peer = &peer;
  message.request = &receive;
  message.tag = receive.tag;
  message.send = announced.send;
  message.bytes = bytes;
  message.dataChecksum = announced.dataChecksum;
  message.chunks = chunks;
  peer.receiving[receive.tag] = number;
  postChunks(message, number);
}

void OfiTransport::postChunks(IncomingMessage& message, uint64_t number) {
  const size_t window = kChunksInFlightPerRail * rails_.size();
  while (message.nextChunk < message.chunks && message.ops.size() < window) {
    Operation& op = chunkReceive(message, number, message.nextChunk++);
    op.rail = railFor(*message.peer);
    message.ops.push_back(&op);
    submit(op);
  }
}

// Over one rail a chunk is received in place. Over several it lands in the
// operation's own buffer and is copied into place on arrival: a receive the
// provider cannot withdraw (a rendezvous under way on a link that went
// down) is left behind when its chunk moves, and may still write when the
// link comes back, long after the user has the buffer back.
Operation& OfiTransport::chunkReceive(const IncomingMessage& message, uint64_t number, uint32_t chunk) {
  Operation& op = pool_.take(OpKind::DataReceive, 0, message.peer->rank);
  const uint64_t offset = uint64_t{chunk} * chunkBytes_;
  op.bytes = std::min(chunkBytes_, message.bytes - offset);
  if (failsOver()) {
    pool_.takeChunkBuffer(op, op.bytes);
  } else {
    op.buffer = static_cast<std::byte*>(message.request->buffer) + offset;
  }
  op.tag = dataTag(number, chunk);
  op.message = number;
  op.chunk = chunk;
  return op;
}

void OfiTransport::grant() {
  for (const uint64_t number : granting_) {
    auto entry = receives_.find(number);
    if (entry == receives_.end()) continue;
    IncomingMessage& message = entry->second;
    std::vector<Operation*>& posted = message.newlyPosted;
    std::sort(posted.begin(), posted.end(), [](const Operation* a, const Operation* b) {
      return std::pair(a->rail, a->chunk) < std::pair(b->rail, b->chunk);
    });
    const auto now = Clock::now();
    for (size_t i = 0; i < posted.size();) {
      size_t run = 1;
      while (i + run < posted.size() && posted[i + run]->rail == posted[i]->rail &&
             posted[i + run]->chunk == posted[i]->chunk + run)
        ++run;
      ControlHeader cts{};
      cts.kind = ControlKind::Cts;
      cts.send = message.send;
      cts.receive = number;
      cts.first = posted[i]->chunk;
      cts.count = static_cast<uint32_t>(run);
      cts.rail = static_cast<uint32_t>(posted[i]->rail);
      cts.bytes = ++message.grants;
      sendControl(*message.peer, cts);
      i += run;
    }
    for (Operation* op : posted) {
      op->granted = true;
      op->grantedAt = now;
    }
    posted.clear();
  }
  granting_.clear();
}

void OfiTransport::onChunkReceived(Operation& op, size_t length, bool cancelled) {
  auto entry = receives_.find(op.message);
  if (entry == receives_.end()) {
    std::erase(strayReceives_, &op);
    pool_.give(op);
    return;
  }
  IncomingMessage& message = entry->second;
  Peer& peer = *message.peer;
  std::erase(message.ops, &op);
  if (op.draining) {
    op.draining = false;
    --peer.draining;
  }
  if (cancelled && op.granted) {
    // The sender was promised this chunk and will send it: into the sink.
    sink_.resize(chunkBytes_);
    op.buffer = sink_.data();
    message.ops.push_back(&op);
    submit(op, true);
    return;
  }
  if (!cancelled) {
    heardOnRail(peer, op.rail);
    if (length == 0) {
      message.withdrawn = true;
    } else if (length == op.bytes) {
      ++message.finished;
      if (failsOver() && message.request != nullptr)
        std::memcpy(static_cast<std::byte*>(message.request->buffer) + uint64_t{op.chunk} * chunkBytes_, op.buffer,
                    length);
    } else {
      failPeer(peer, Error(trncclRemoteError, peer.name + " sent " + std::to_string(length) + " bytes as chunk " +
                                                  std::to_string(op.chunk) + " of a message (tag " +
                                                  std::to_string(message.tag) + "), which has " +
                                                  std::to_string(op.bytes) + " there"));
    }
  }
  pool_.give(op);
  if (message.request != nullptr && !message.withdrawn) postChunks(message, entry->first);
  if (message.ops.empty() && (message.withdrawn || message.request == nullptr || message.finished == message.chunks))
    endIncoming(entry->first);
}

bool OfiTransport::receiving(const Operation& op) const {
  const auto entry = receives_.find(op.message);
  return entry != receives_.end() && entry->second.request != nullptr;
}

void OfiTransport::endIncoming(uint64_t number) {
  auto entry = receives_.find(number);
  const IncomingMessage message = std::move(entry->second);
  receives_.erase(entry);
  if (message.request == nullptr) return;
  Peer& peer = *message.peer;
  peer.receiving.erase(message.tag);
  if (!message.withdrawn) {
    if (checksums_) {
      const uint32_t arrived = crc32Of(message.request->buffer, message.bytes);
      if (arrived != message.dataChecksum) {
        // Bytes the provider misplaced may have landed anywhere: trust nothing more from it.
        failPeer(peer, Error(trncclRemoteError,
                             "the message from " + peer.name + " (tag " + std::to_string(message.tag) + ", " +
                                 std::to_string(message.bytes) + " bytes) arrived corrupted (" +
                                 checksumsDiffer(arrived, message.dataChecksum) + ") over provider " + provider_));
        return;
      }
    }
    if (!failsOver()) {
      complete(peer, *message.request, message.bytes);
      return;
    }
    ControlHeader done{};
    done.kind = ControlKind::Done;
    done.send = message.send;
    done.bytes = message.bytes;
    Operation& op = sendControl(peer, done);
    op.request = message.request;  // completed when the Done has left
    dones_.push_back(&op);
    return;
  }
  // The sender withdrew it: wait for the next message with the tag.
  if (auto next = peer.unexpected.find(message.tag); next != peer.unexpected.end()) {
    const Announcement announcement = std::move(next->second);
    peer.unexpected.erase(next);
    match(peer, *message.request, announcement, announcement.payload.data());
  } else {
    peer.posted.emplace(message.tag, message.request);
  }
}

bool OfiTransport::arrived(int rank, Tag tag) const {
  if (rank < 0 || static_cast<size_t>(rank) >= peerOfRank_.size() || peerOfRank_[static_cast<size_t>(rank)] == nullptr)
    return false;
  const Peer& peer = *peerOfRank_[static_cast<size_t>(rank)];
  return peer.unexpected.contains(tag);
}

}  // namespace trnccl::transport::ofi
