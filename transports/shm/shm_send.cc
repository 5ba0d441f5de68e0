// The shared-memory transport: holding sends back while their modelled links
// are busy, writing sends and replies into a peer's FIFO, and withdrawing
// announcements.
#include <cstring>

#include "transports/shm/shm_transport_internal.h"

namespace trnccl::transport::shm {

void ShmTransport::hold(Peer& peer, const Outgoing& send) {
  const uint64_t due = pacer_->reserve(peer.link.rank, send.request->bytes, !send.request->continues);
  peer.paced.push_back({send, due});
  nextDueNs_ = std::min(nextDueNs_, due);
}

// Moves the held sends that are due to their outboxes, in the order they were
// posted. A peer's come due in that order: its path is the same for all of
// them, so each reservation ends after the one before (only an empty message
// can be due before one ahead of it, and leaves right after it).
void ShmTransport::releaseDue() {
  const uint64_t now = monotonicNs();
  nextDueNs_ = kNoneDue;
  for (Peer& peer : peers_) {
    while (!peer.paced.empty() && peer.paced.front().dueNs <= now) {
      peer.outbox.push_back(peer.paced.front().send);
      peer.paced.pop_front();
    }
    if (!peer.paced.empty()) nextDueNs_ = std::min(nextDueNs_, peer.paced.front().dueNs);
  }
}

void ShmTransport::commitFifo(Peer& peer) {
  PeerLink& link = peer.link;
  if (const int err = link.segment.commit(link.toPeerSlots); err != 0)
    throwError(trncclSystemError, "cannot commit the " + std::to_string(link.toPeerSlots.bytes) +
                                      "-byte FIFO from rank " + std::to_string(rank_) + " to " + who(peer) +
                                      " in /dev/shm (" + std::strerror(err) + "); /dev/shm has " + freeBytesInDevShm() +
                                      " bytes free (TRNCCL_SHM_FIFO_BYTES=" + std::to_string(config_.fifoBytes) + ")");
  link.toPeerCommitted = true;
  committedBytes_ += link.toPeerSlots.bytes;
}

void ShmTransport::flush(Peer& peer) {
  if (peer.replies.empty() && peer.outbox.empty()) return;
  if (!peer.link.toPeerCommitted) commitFifo(peer);
  FifoWriter& fifo = peer.link.toPeer;
  while (!peer.replies.empty() && fifo.hasSpace()) {
    const Reply& reply = peer.replies.front();
    fifo.write({reply.kind, 0, reply.tag, reply.total, 0, 0, 0, reply.announcement}, nullptr);
    peer.replies.pop_front();
  }
  while (peer.replies.empty() && !peer.outbox.empty() && fifo.hasSpace()) {
    Outgoing& out = peer.outbox.front();
    Request& send = *out.request;
    if (out.kind == SlotKind::Eager && send.bytes > 0 && !peer.eagerWindow.admits(send.bytes, fifo, peer.link.rank))
      out.kind = SlotKind::Rts;
    if (out.kind == SlotKind::Rts) {
      auto [waiting, fresh] = peer.awaitingReply.try_emplace(send.tag, AnnouncedSend{&send, 0});
      if (fresh) {
        waiting->second.announcement = peer.link.announcementsToPeer.announce();
        // A thread of our process reads the buffer itself; a process may map
        // the file of a registered user input.
        const FileRef file = send.userInput && !peer.link.process.isThisProcess()
                                 ? registeredFiles_.find(send.buffer, send.bytes)
                                 : FileRef{};
        fifo.write({SlotKind::Rts, file.fd, send.tag, send.bytes, file.inode, 0,
                    file ? file.offset : reinterpret_cast<uint64_t>(send.buffer), waiting->second.announcement},
                   nullptr);
      } else {
        fail(trncclInvalidUsage, "rank " + std::to_string(rank_) + " sent a second message to " +
                                     describe(peer.link.rank, send.tag) + " while the first is in flight");
      }
      peer.outbox.pop_front();
      continue;
    }
    const uint64_t bytes = std::min(connections_.fifo.slotBytes, send.bytes - out.offset);
    const SlotKind kind = out.kind == SlotKind::Eager && out.offset == 0 ? SlotKind::Eager : SlotKind::Data;
    if (kind == SlotKind::Eager) peer.eagerWindow.sent(send.bytes);
    fifo.write({kind, 0, send.tag, send.bytes, out.offset, bytes, 0, 0},
               static_cast<const std::byte*>(send.buffer) + out.offset);
    out.offset += bytes;
    if (out.offset == send.bytes) {
      complete(send, send.bytes, bytesSent_);
      peer.outbox.pop_front();
    }
  }
  if (fifo.publish()) peer.link.doorbell.ringIfSleeping();
}

// A peer's announced send completes only with our reply (Fin, Cts, Nack),
// and one can still be queued when all our own requests are done: the FIFO
// to that peer was full. Closing without it would fail the peer's send, so
// the replies go out first, while the peer lives and drains its FIFO, for at
// most kLastRepliesWait (a peer that stopped draining is not waited for).
void ShmTransport::sendLastReplies() noexcept {
  const auto start = std::chrono::steady_clock::now();
  Backoff backoff;
  for (;;) {
    const uint32_t seen = connections_.doorbell.sequence();  // before any FIFO is found full
    bool owed = false;
    for (Peer& peer : peers_) {
      peer.paced.clear();  // our own unfinished sends are the caller's to abandon
      peer.outbox.clear();
      if (peer.replies.empty() || peer.broken || peer.link.process.hasExited() ||
          std::atomic_ref<uint32_t>(*peer.link.closed).load(std::memory_order_acquire) != 0)
        continue;
      try {
        flush(peer);
      } catch (const Error&) {
        continue;  // its FIFO is corrupt, or /dev/shm full: nothing more can reach it
      }
      owed = owed || !peer.replies.empty();
    }
    if (!owed || std::chrono::steady_clock::now() - start > kLastRepliesWait) return;
    // A peer that frees a slot we asked for rings our doorbell.
    backoff.pause([&](std::chrono::microseconds maxWait) { connections_.doorbell.sleep(seen, maxWait); });
  }
}

// Takes an announced send's buffer back from the peer, which may be copying a
// chunk of it this very moment: then wait for that copy (one chunk at most)
// to end, so that nobody touches the buffer once cancelAll returns.
void ShmTransport::withdraw(Peer& peer, AnnouncementId announcement) {
  OutgoingAnnouncements& announcements = peer.link.announcementsToPeer;
  const auto start = std::chrono::steady_clock::now();
  Backoff backoff;
  while (!announcements.tryWithdraw(announcement)) {
    if (peer.link.process.hasExited()) break;  // and its reads with it
    if (std::chrono::steady_clock::now() - start > timeout_) {
      // Never seen: a live peer stuck in one copy. Keep the slot out of use,
      // lest its late end of the read clobber a newer announcement.
      TRNCCL_WARN("shm: rank %d: %s is still reading a cancelled send's buffer after %lld ms", rank_, who(peer).c_str(),
                  static_cast<long long>(timeout_.count()));
      return;
    }
    backoff.pause([](std::chrono::microseconds maxWait) { std::this_thread::sleep_for(maxWait); });
  }
  announcements.release(announcement);
}

}  // namespace trnccl::transport::shm
