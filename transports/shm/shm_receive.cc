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
        onEager(peer, slot, payload);
        break;
      case SlotKind::Rts:
        onAnnouncement(peer, slot);
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

// A message is new only if no other with its tag is in flight, except an
// announcement its sender has since withdrawn, which it replaces.
void ShmTransport::checkNew(Peer& peer, Tag tag) {
  bool seen = findEarly(peer, tag) != kNotFound;
  if (!seen && !peer.incoming.empty()) {
    if (auto message = peer.incoming.find(tag); message != peer.incoming.end()) {
      seen = !isWithdrawn(peer, message->second);
      if (!seen) peer.incoming.erase(message);
    }
  }
  if (seen)
    protocolError(peer, "a second message with tag " + std::to_string(tag) +
                            " before the first was received (tags must be unique among the "
                            "messages in flight)");
}

void ShmTransport::onEager(Peer& peer, const SlotHeader& slot, const std::byte* payload) {
  if (slot.total > kEagerBytes || slot.offset != 0 || slot.bytes != slot.total)
    protocolError(peer, "eager message of " + std::to_string(slot.total) + " bytes starting with " +
                            std::to_string(slot.bytes) + " bytes at offset " + std::to_string(slot.offset));
  checkNew(peer, slot.tag);
  if (Request* receive = takePosted(peer, slot.tag)) {
    peer.link.fromPeer.delivered(slot.total);
    if (slot.total > receive->bytes) return tooSmall(peer, slot.tag, slot.total, *receive);
    if (slot.total > 0) std::memcpy(receive->buffer, payload, slot.total);
    return complete(*receive, slot.total, bytesReceived_);
  }
  if (peer.earlyCount == peer.early.size()) peer.early.emplace_back();
  EarlyMessage& early = peer.early[peer.earlyCount++];
  early.tag = slot.tag;
  early.total = slot.total;
  // Every buffer grows to the largest early message yet, so that once a peer's
  // largest and its most simultaneous early messages have been seen, none
  // grows again, whichever buffer a message lands in.
  peer.largestEarly = std::max(peer.largestEarly, slot.total);
  if (early.bytes.size() < slot.total) early.bytes.resize(peer.largestEarly);
  if (slot.total > 0) std::memcpy(early.bytes.data(), payload, slot.total);
}

void ShmTransport::onAnnouncement(Peer& peer, const SlotHeader& slot) {
  if (!IncomingAnnouncements::valid(slot.announcement))
    protocolError(peer, "an announcement in slot " + std::to_string(static_cast<uint32_t>(slot.announcement)) +
                            " (there are " + std::to_string(kAnnouncementSlots) + ")");
  checkNew(peer, slot.tag);
  const auto message =
      peer.incoming
          .emplace(slot.tag, Incoming{.address = slot.file != 0 ? 0 : slot.address,
                                      .file = {slot.file, slot.offset, slot.file != 0 ? slot.address : 0},
                                      .announcement = slot.announcement,
                                      .total = slot.total})
          .first;
  if (Request* receive = takePosted(peer, slot.tag)) match(peer, message, *receive);
}

void ShmTransport::onData(Peer& peer, const SlotHeader& slot, const std::byte* payload) {
  auto message = peer.incoming.find(slot.tag);
  if (message == peer.incoming.end() || message->second.state == Incoming::State::Unexpected)
    protocolError(peer, "data for tag " + std::to_string(slot.tag) + ", which it never started");
  Incoming& m = message->second;
  if (slot.offset != m.arrived || slot.bytes > m.total - m.arrived)
    protocolError(peer, std::to_string(slot.bytes) + " bytes at offset " + std::to_string(slot.offset) + " of a " +
                            std::to_string(m.total) + "-byte message (tag " + std::to_string(slot.tag) + ") of which " +
                            std::to_string(m.arrived) + " bytes had arrived");
  if (m.state == Incoming::State::Receiving)
    std::memcpy(static_cast<std::byte*>(m.receive->buffer) + m.arrived, payload, slot.bytes);
  m.arrived += slot.bytes;
  if (m.arrived < m.total) return;
  if (m.state == Incoming::State::Receiving) complete(*m.receive, m.total, bytesReceived_);
  peer.incoming.erase(message);
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
    complete(send, send.bytes, bytesSent_);
  } else {
    fail(trncclInvalidUsage, "rank " + std::to_string(rank_) + " sent a " + std::to_string(send.bytes) +
                                 "-byte message to " + describe(peer.link.rank, slot.tag) +
                                 ", but the receive posted for it holds only " + std::to_string(slot.total) + " bytes");
  }
}

size_t ShmTransport::findPosted(const Peer& peer, Tag tag) {
  for (size_t i = 0; i < peer.posted.size(); ++i)
    if (peer.posted[i]->tag == tag) return i;
  return kNotFound;
}

size_t ShmTransport::findEarly(const Peer& peer, Tag tag) {
  for (size_t i = 0; i < peer.earlyCount; ++i)
    if (peer.early[i].tag == tag) return i;
  return kNotFound;
}

Request* ShmTransport::takePosted(Peer& peer, Tag tag) {
  const size_t i = findPosted(peer, tag);
  if (i == kNotFound) return nullptr;
  Request* receive = peer.posted[i];
  peer.posted[i] = peer.posted.back();
  peer.posted.pop_back();
  return receive;
}

void ShmTransport::takeEarly(Peer& peer, size_t index, Request& receive) {
  const EarlyMessage& early = peer.early[index];
  peer.link.fromPeer.delivered(early.total);
  if (early.total > receive.bytes) {
    tooSmall(peer, early.tag, early.total, receive);
  } else {
    if (early.total > 0) std::memcpy(receive.buffer, early.bytes.data(), early.total);
    complete(receive, early.total, bytesReceived_);
  }
  std::swap(peer.early[index], peer.early[--peer.earlyCount]);  // keeps both buffers
}

void ShmTransport::tooSmall(const Peer& peer, Tag tag, uint64_t total, const Request& receive) {
  fail(trncclInvalidUsage, "the message from " + describe(peer.link.rank, tag) + " is " + std::to_string(total) +
                               " bytes, larger than the " + std::to_string(receive.bytes) + "-byte receive rank " +
                               std::to_string(rank_) + " posted for it");
}

void ShmTransport::match(Peer& peer, IncomingMap::iterator message, Request& receive) {
  Incoming& m = message->second;
  const Tag tag = message->first;
  if (m.total > receive.bytes) {
    tooSmall(peer, tag, m.total, receive);
    peer.replies.push_back({SlotKind::Nack, tag, receive.bytes, m.announcement});
    peer.incoming.erase(message);
    return;
  }
  // A message in a registered file is read out of our mapping of it, or
  // streamed where that cannot be mapped (its Rts carries no address; a pid
  // from another pid namespace names no file of ours).
  const std::byte* mapped =
      m.file && peer.link.process.addressable() && !IncomingAnnouncements::streamOnly(m.announcement)
          ? peer.files.find(peer.link.process.pid(), m.file, m.total, pulls_.empty())
          : nullptr;
  const bool singleCopy =
      m.file ? mapped != nullptr : singleCopyFrom(peer) && !IncomingAnnouncements::streamOnly(m.announcement);
  TRNCCL_TRACE("shm: rank %d: %llu-byte message from %s: %s", rank_, static_cast<unsigned long long>(m.total),
               describe(peer.link.rank, tag).c_str(), singleCopy ? "single copy" : "streamed");
  if (singleCopy) {
    pulls_.push_back({&peer, &receive, tag, m.address, mapped, m.announcement, m.total});
    peer.incoming.erase(message);
    return;
  }
  if (!peer.link.announcementsFromPeer.claim(m.announcement)) {
    peer.incoming.erase(message);
    repost(peer, receive);
    return;
  }
  peer.replies.push_back({SlotKind::Cts, tag, 0, m.announcement});
  m.state = Incoming::State::Receiving;
  m.receive = &receive;
}

// An announcement that waits for its receive, but whose sender has since
// cancelled it (the only way a sender can reuse its tag). A stream-only one
// cannot show it, but neither is its buffer ever read in place.
bool ShmTransport::isWithdrawn(const Peer& peer, const Incoming& message) const {
  return message.state == Incoming::State::Unexpected && (IncomingAnnouncements::streamOnly(message.announcement) ||
                                                          !peer.link.announcementsFromPeer.live(message.announcement));
}

// A receive whose message was withdrawn waits for the next message with its
// tag, which may have arrived already.
void ShmTransport::repost(Peer& peer, Request& receive) {
  if (const size_t i = findEarly(peer, receive.tag); i != kNotFound) return takeEarly(peer, i, receive);
  auto message = peer.incoming.find(receive.tag);
  if (message != peer.incoming.end() && message->second.state == Incoming::State::Unexpected)
    match(peer, message, receive);
  else
    peer.posted.push_back(&receive);
}

bool ShmTransport::singleCopyFrom(const Peer& peer) const {
  const PeerProcess& process = peer.link.process;
  if (config_.copy == CopyPath::Fifo) return false;
  return process.isThisProcess() ||
         (pullsFromOtherProcesses(config_.copy, oversubscribed_) && process.addressable() && !singleCopyRefused_);
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
  std::byte* into = static_cast<std::byte*>(pull.receive->buffer) + pull.offset;
  int err = 0;
  if (pull.mapped != nullptr)
    std::memcpy(into, pull.mapped + pull.offset, bytes);
  else
    err = peer.link.process.copyFrom(into, pull.address + pull.offset, bytes);
  if (err == 0) pull.offset += bytes;
  // After a failed copy the buffer is never read again either (a refused
  // read has it streamed, which a Cts tells the sender once it is Done).
  announcements.endRead(pull.announcement, err != 0 || pull.offset == pull.total);
  if (err == 0) {
    if (pull.offset < pull.total) return false;
    complete(*pull.receive, pull.total, bytesReceived_);
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
                 .address = pull.address,
                 .file = {},
                 .announcement = pull.announcement,
                 .total = pull.total,
                 .arrived = 0,
                 .receive = pull.receive};
    peer.replies.push_back({SlotKind::Cts, pull.tag, 0, pull.announcement});
  } else if (err == ESRCH) {
    fail(trncclRemoteError, who(peer) + " exited during a " + what);
  } else {
    fail(trncclSystemError, what + " failed: " + std::strerror(err));
  }
  return true;
}

bool ShmTransport::arrived(int rank, Tag tag) const {
  const Peer* found = peerAt(rank);
  if (found == nullptr) return false;
  const Peer& peer = *found;
  if (findEarly(peer, tag) != kNotFound) return true;
  const auto message = peer.incoming.find(tag);
  return message != peer.incoming.end() && message->second.state == Incoming::State::Unexpected &&
         !isWithdrawn(peer, message->second);
}

}  // namespace trnccl::transport::shm
