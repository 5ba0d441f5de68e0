// The shared-memory transport: draining a peer's FIFO, matching and delivering
// messages, and single-copy pulls.
#include "transports/shm/shm_transport_internal.h"

namespace trnccl::transport::shm {

void ShmTransport::drain(Peer& peer) {
  FifoReader& fifo = peer.link.fromPeer;
  while (fifo.hasNext()) {
    const std::byte* payload = nullptr;
    const SlotHeader slot = fifo.next(&payload);
    switch (slot.kind) {
      case SlotKind::Eager:
      case SlotKind::Rts:
        onMessage(peer, slot, payload);
        break;
      case SlotKind::Data:
        onData(peer, slot, payload);
        break;
      case SlotKind::Cts:
      case SlotKind::Fin:
      case SlotKind::Nack:
        onReply(peer, slot);
        break;
    }
    fifo.consume();
  }
  if (fifo.release()) peer.link.doorbell.ring();
}

void ShmTransport::onMessage(Peer& peer, const SlotHeader& slot, const std::byte* payload) {
  const bool announced = slot.kind == SlotKind::Rts;
  if (!announced && (slot.total > kEagerBytes || slot.offset != 0 || slot.bytes > slot.total))
    protocolError(peer, "eager message of " + std::to_string(slot.total) + " bytes starting with " +
                            std::to_string(slot.bytes) + " bytes at offset " + std::to_string(slot.offset));
  if (announced && !IncomingAnnouncements::valid(slot.announcement))
    protocolError(peer, "an announcement in slot " + std::to_string(static_cast<uint32_t>(slot.announcement)) +
                            " (there are " + std::to_string(kAnnouncementSlots) + ")");
  auto [message, fresh] = peer.incoming.try_emplace(slot.tag);
  if (!fresh && isWithdrawn(peer, message->second)) {
    message->second = Incoming{};  // the sender cancelled that one: this one replaces it
  } else if (!fresh) {
    protocolError(peer, "a second message with tag " + std::to_string(slot.tag) +
                            " before the first was received (tags must be unique among the "
                            "messages in flight)");
  }
  message->second.announced = announced;
  message->second.address = slot.address;
  message->second.announcement = slot.announcement;
  message->second.total = slot.total;
  if (auto posted = peer.posted.find(slot.tag); posted != peer.posted.end()) {
    Request& receive = *posted->second;
    peer.posted.erase(posted);
    match(peer, message, receive);  // erases `message` only if announced or empty
  } else if (!announced) {
    message->second.staging.resize(slot.total);
  }
  if (!announced && slot.total > 0) deliver(peer, message, payload, slot.bytes);
}

void ShmTransport::onData(Peer& peer, const SlotHeader& slot, const std::byte* payload) {
  auto message = peer.incoming.find(slot.tag);
  if (message == peer.incoming.end() ||
      (message->second.announced && message->second.state == Incoming::State::Unexpected))
    protocolError(peer, "data for tag " + std::to_string(slot.tag) + ", which it never started");
  const Incoming& m = message->second;
  if (slot.offset != m.arrived || slot.bytes > m.total - m.arrived)
    protocolError(peer, std::to_string(slot.bytes) + " bytes at offset " + std::to_string(slot.offset) + " of a " +
                            std::to_string(m.total) + "-byte message (tag " + std::to_string(slot.tag) + ") of which " +
                            std::to_string(m.arrived) + " bytes had arrived");
  deliver(peer, message, payload, slot.bytes);
}

void ShmTransport::onReply(Peer& peer, const SlotHeader& slot) {
  auto waiting = peer.awaitingReply.find(slot.tag);
  // None, or a later send with the same tag: the send it answers was cancelled.
  if (waiting == peer.awaitingReply.end() || waiting->second.announcement != slot.announcement) return;
  Request& send = *waiting->second.request;
  OutgoingAnnouncements& announcements = peer.link.announcementsToPeer;
  if (slot.kind != SlotKind::Nack && !announcements.receiverDone(slot.announcement))
    protocolError(peer, "a reply to the announcement of tag " + std::to_string(slot.tag) +
                            " while still reading the buffer it announces");
  announcements.release(slot.announcement);
  peer.awaitingReply.erase(waiting);
  if (slot.kind == SlotKind::Cts) {
    peer.outbox.push_back({&send, SlotKind::Data});
  } else if (slot.kind == SlotKind::Fin) {
    complete(send, send.bytes);
  } else {
    fail(trncclInvalidUsage, "rank " + std::to_string(rank_) + " sent a " + std::to_string(send.bytes) +
                                 "-byte message to " + describe(peer.link.rank, slot.tag) +
                                 ", but the receive posted for it holds only " + std::to_string(slot.total) + " bytes");
  }
}

void ShmTransport::match(Peer& peer, IncomingMap::iterator message, Request& receive) {
  Incoming& m = message->second;
  const Tag tag = message->first;
  if (m.total > receive.bytes) {
    fail(trncclInvalidUsage, "the message from " + describe(peer.link.rank, tag) + " is " + std::to_string(m.total) +
                                 " bytes, larger than the " + std::to_string(receive.bytes) + "-byte receive rank " +
                                 std::to_string(rank_) + " posted for it");
    if (m.announced) peer.replies.push_back({SlotKind::Nack, tag, receive.bytes, m.announcement});
    if (m.announced || m.arrived == m.total) {
      peer.incoming.erase(message);
    } else {
      m.state = Incoming::State::Discarding;
      m.staging = {};
    }
    return;
  }
  const bool singleCopy = m.announced && singleCopyFrom(peer) && !IncomingAnnouncements::streamOnly(m.announcement);
  TRNCCL_TRACE("shm: rank %d: %llu-byte message from %s: %s", rank_, static_cast<unsigned long long>(m.total),
               describe(peer.link.rank, tag).c_str(),
               !m.announced ? "eager"
               : singleCopy ? "single copy"
                            : "streamed");
  if (singleCopy) {
    pulls_.push_back({&peer, &receive, tag, m.address, m.announcement, m.total});
    peer.incoming.erase(message);
    return;
  }
  if (m.announced && !peer.link.announcementsFromPeer.claim(m.announcement)) {
    peer.incoming.erase(message);
    repost(peer, receive);
    return;
  }
  if (m.announced) peer.replies.push_back({SlotKind::Cts, tag, 0, m.announcement});
  if (m.arrived > 0) std::memcpy(receive.buffer, m.staging.data(), m.arrived);
  m.staging = {};
  m.state = Incoming::State::Receiving;
  m.receive = &receive;
  if (!m.announced && m.arrived == m.total) {
    complete(receive, m.total);
    peer.incoming.erase(message);
  }
}

// An announcement that waits for its receive, but whose sender has since
// cancelled it (the only way a sender can reuse its tag). A stream-only one
// cannot show it, but neither is its buffer ever read in place.
bool ShmTransport::isWithdrawn(const Peer& peer, const Incoming& message) const {
  return message.announced && message.state == Incoming::State::Unexpected &&
         (IncomingAnnouncements::streamOnly(message.announcement) ||
          !peer.link.announcementsFromPeer.live(message.announcement));
}

// A receive whose message was withdrawn waits for the next message with its
// tag, which may have arrived already.
void ShmTransport::repost(Peer& peer, Request& receive) {
  auto message = peer.incoming.find(receive.tag);
  if (message != peer.incoming.end() && message->second.state == Incoming::State::Unexpected)
    match(peer, message, receive);
  else
    peer.posted.emplace(receive.tag, &receive);
}

void ShmTransport::deliver(Peer& peer, IncomingMap::iterator message, const std::byte* payload, uint64_t bytes) {
  Incoming& m = message->second;
  if (m.state == Incoming::State::Receiving)
    std::memcpy(static_cast<std::byte*>(m.receive->buffer) + m.arrived, payload, bytes);
  else if (m.state == Incoming::State::Unexpected)
    std::memcpy(m.staging.data() + m.arrived, payload, bytes);
  m.arrived += bytes;
  if (m.arrived < m.total || m.state == Incoming::State::Unexpected) return;
  if (m.state == Incoming::State::Receiving) complete(*m.receive, m.total);
  peer.incoming.erase(message);
}

bool ShmTransport::singleCopyFrom(const Peer& peer) const {
  const PeerProcess& process = peer.link.process;
  switch (config_.copy) {
    case CopyPath::Fifo:
      return false;
    case CopyPath::Auto:
      return process.isThisProcess();
    case CopyPath::Cma:
      return process.isThisProcess() || (process.addressable() && !singleCopyRefused_);
  }
  return false;
}

void ShmTransport::advancePulls() {
  std::erase_if(pulls_, [this](Pull& pull) { return advance(pull); });
  // Only now: reposting may start a new pull.
  for (Request* receive : withdrawnReceives_) repost(*peerOfRank_[static_cast<size_t>(receive->peer)], *receive);
  withdrawnReceives_.clear();
}

// One step of a single-copy read; true when the pull is over.
bool ShmTransport::advance(Pull& pull) {
  Peer& peer = *pull.peer;
  IncomingAnnouncements& announcements = peer.link.announcementsFromPeer;
  if (!announcements.beginRead(pull.announcement)) {
    // The sender cancelled the send since the last chunk: its buffer is no
    // longer the message. The receive waits for another message with the tag.
    withdrawnReceives_.push_back(pull.receive);
    return true;
  }
  const uint64_t bytes = std::min<uint64_t>(kPullChunkBytes, pull.total - pull.offset);
  const int err = peer.link.process.copyFrom(static_cast<std::byte*>(pull.receive->buffer) + pull.offset,
                                             pull.address + pull.offset, bytes);
  if (err == 0) pull.offset += bytes;
  // After a failed copy the buffer is never read again either (a refused
  // read has it streamed, which a Cts tells the sender once it is Done).
  announcements.endRead(pull.announcement, err != 0 || pull.offset == pull.total);
  if (err == 0) {
    if (pull.offset < pull.total) return false;
    complete(*pull.receive, pull.total);
    peer.replies.push_back({SlotKind::Fin, pull.tag, 0, pull.announcement});
    return true;
  }
  const std::string what = "single-copy read of the " + std::to_string(pull.total) + "-byte message from " + who(peer) +
                           " (tag " + std::to_string(pull.tag) + ")";
  if (err == EPERM || err == ENOSYS) {
    if (!singleCopyRefused_)
      TRNCCL_INFO(
          "shm: rank %d: %s refused (%s); large messages now take two copies through "
          "the FIFO",
          rank_, what.c_str(), std::strerror(err));
    singleCopyRefused_ = true;
    Incoming& m = peer.incoming[pull.tag];
    m = Incoming{.state = Incoming::State::Receiving,
                 .announced = true,
                 .address = pull.address,
                 .announcement = pull.announcement,
                 .total = pull.total,
                 .arrived = 0,
                 .receive = pull.receive,
                 .staging = {}};
    peer.replies.push_back({SlotKind::Cts, pull.tag, 0, pull.announcement});
  } else if (err == ESRCH) {
    fail(trncclRemoteError, who(peer) + " exited during a " + what);
  } else {
    fail(trncclSystemError, what + " failed: " + std::strerror(err));
  }
  return true;
}

}  // namespace trnccl::transport::shm
