// The shared-memory transport's protocol.
//
// Each rank owns one segment (layout.h) holding its doorbell and, for each
// peer, a FIFO that only that peer writes (fifo.h). A message from A to B
// travels through A's FIFO in B's segment, as slots:
//
//   eager (up to kEagerBytes; zero-byte messages always):
//     A writes Eager(tag, total, first chunk) [Data(next chunk) ...]; the send
//     is complete once the last chunk is in the FIFO. B copies the chunks into
//     the posted receive, or into a heap buffer until one is posted.
//   announced (larger, or every non-empty message with TRNCCL_SHM_COPY=cma):
//     A writes Rts(tag, total, address of A's buffer, announcement) and waits.
//     The announcement names a state word in A's segment (B maps it too) that
//     says whether A's buffer still holds the message (announcement.h). Once
//     B has a receive for it (one too small: Nack to A, InvalidUsage on both
//     sides), B picks the path (config.h: CopyPath):
//       single copy: B reads A's buffer itself (memcpy when A is a thread of
//         B's process, process_vm_readv otherwise), moving the word Announced
//         -> Reading before each chunk and back after it (Done after the
//         last), then writes Fin(tag) to A, which completes the send;
//       two copies: B moves the word Announced -> Done and writes Cts(tag) to
//         A, and A streams the message as Data chunks through the FIFO; its
//         send completes with the last chunk.
//     A has a word for at most kAnnouncementSlots messages to B at a time;
//     beyond that it announces without one, and B always asks for those
//     streamed. Replies name the announcement they answer.
//   Nothing larger than kEagerBytes is ever buffered on the heap.
//
// Cancelling (cancelAll) takes A's announced buffers back: A moves each word
// Announced -> Withdrawn, or, finding B Reading, waits until that chunk's copy
// is over (or B's process has exited). B, finding a word withdrawn, forgets
// the announcement (a new message with its tag replaces it), and its receive
// stays posted for a later message with the tag; a reply to a withdrawn
// announcement is ignored, so a cancelled send never streams either. Once
// cancelAll returns, no rank touches the buffers of the requests it cancelled.
//
// Replies (Cts, Fin, Nack) go out before queued data, and every rank drains
// every FIFO it owns on each progress(), so a full FIFO always empties and
// no cycle of full FIFOs can deadlock.
//
// Ordering and waking: slots are published by a release store of the FIFO's
// head and read after an acquire load (fifo.h); whoever publishes then rings
// the receiver's doorbell (doorbell.h), and a receiver that frees slots a
// sender waits for rings the sender's. progress() reads its own doorbell's
// sequence before it looks at anything and wait() sleeps only while the
// sequence is unchanged, so nothing published after the look is missed.
//
// Failures: everything read from shared memory is validated (fifo.h, and the
// message checks here; an announcement's word is only ever compared with the
// exact value expected); a peer's impossible values give trncclRemoteError
// naming it. While a rank has requests outstanding with a peer it checks,
// every kLivenessInterval, whether the peer's process exited or its transport
// closed. It decides that before it drains the peer's FIFO, so whatever the
// peer published before it went is still delivered.
#include "transports/shm/shm_transport.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <exception>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/backoff.h"
#include "base/error.h"
#include "base/log.h"
#include "transports/shm/config.h"
#include "transports/shm/setup.h"

namespace trnccl::transport::shm {
namespace {

// A reply slot still to be written: Cts, Fin or Nack (total = capacity).
struct Reply {
  SlotKind kind;
  Tag tag;
  uint64_t total;
  AnnouncementId announcement;
};

// A send still to be written into the peer's FIFO.
struct Outgoing {
  Request* request;
  SlotKind kind;  // Eager: copy it in now; Rts: announce it; Data: stream it (after Cts)
  uint64_t offset = 0;
};

// A message from a peer that has announced itself or begun to arrive.
struct Incoming {
  enum class State { Unexpected, Receiving, Discarding };
  State state = State::Unexpected;
  bool announced = false;           // came as Rts: the bytes wait in the sender's buffer
  uint64_t address = 0;             // announced: where
  AnnouncementId announcement = 0;  // announced: whether they still do
  uint64_t total = 0;
  uint64_t arrived = 0;
  Request* receive = nullptr;      // Receiving
  std::vector<std::byte> staging;  // Unexpected and not announced
};
using IncomingMap = std::unordered_map<Tag, Incoming>;

// A send that announced itself and waits for the receiver's reply.
struct AnnouncedSend {
  Request* request;
  AnnouncementId announcement;
};

struct Peer {
  explicit Peer(PeerLink l) : link(std::move(l)) {}
  PeerLink link;
  std::deque<Reply> replies;
  std::deque<Outgoing> outbox;
  std::unordered_map<Tag, AnnouncedSend> awaitingReply;  // announced sends
  std::unordered_map<Tag, Request*> posted;              // receives nothing has arrived for
  IncomingMap incoming;
  std::string gone;     // why requests with this peer can no longer complete
  bool broken = false;  // it corrupted shared memory: never read it again
};

// A receive filled by single copy straight from the sender's buffer.
struct Pull {
  Peer* peer;
  Request* receive;
  Tag tag;
  uint64_t address;
  AnnouncementId announcement;
  uint64_t total;
  uint64_t offset = 0;
};

void complete(Request& request, uint64_t bytes) {
  request.transferred = bytes;
  request.done = true;
}

std::string describe(int rank, Tag tag) {
  return "rank " + std::to_string(rank) + " (tag " + std::to_string(tag) + ")";
}

class ShmTransport final : public Transport {
 public:
  ShmTransport(const Options& options, Config config, Connections connections);
  ~ShmTransport() override;

  const char* name() const override { return "shm"; }
  void isend(Request& request) override;
  void irecv(Request& request) override;
  void progress() override;
  void wait(std::chrono::microseconds maxWait) override;
  void interrupt() override;
  void cancelAll() override;

 private:
  Peer& peerOf(const Request& request, const char* operation);
  // Receiving.
  void drain(Peer& peer);
  void onMessage(Peer& peer, const SlotHeader& slot, const std::byte* payload);
  void onData(Peer& peer, const SlotHeader& slot, const std::byte* payload);
  void onReply(Peer& peer, const SlotHeader& slot);
  void match(Peer& peer, IncomingMap::iterator message, Request& receive);
  bool isWithdrawn(const Peer& peer, const Incoming& message) const;
  void repost(Peer& peer, Request& receive);
  void deliver(Peer& peer, IncomingMap::iterator message, const std::byte* payload, uint64_t bytes);
  bool singleCopyFrom(const Peer& peer) const;
  void advancePulls();
  bool advance(Pull& pull);
  // Sending.
  void flush(Peer& peer);
  void withdraw(Peer& peer, AnnouncementId announcement);
  // Failures.
  template <class Step>
  void unlessBroken(Peer& peer, Step&& step);
  [[noreturn]] void protocolError(const Peer& peer, const std::string& what) const;
  void fail(trncclResult_t code, const std::string& message);
  bool hasOutstanding(const Peer& peer) const;
  void noticeDepartures();
  std::string who(const Peer& peer) const;

  const int rank_;
  const Config config_;
  const std::chrono::milliseconds timeout_;
  Connections connections_;
  std::vector<Peer> peers_;
  std::vector<Peer*> peerOfRank_;  // null for ranks that are not peers
  std::vector<Pull> pulls_;
  std::vector<Request*> withdrawnReceives_;  // their pulls found the message withdrawn
  std::exception_ptr pendingError_;          // the first failure, thrown by the next progress()
  bool singleCopyRefused_ = false;
  uint32_t seen_ = 0;  // our doorbell's sequence when progress() last looked
  std::chrono::steady_clock::time_point lastLivenessCheck_{};
  uint64_t progressCalls_ = 0;
  bool slept_ = false;
  std::atomic<bool> interrupted_{false};
};

ShmTransport::ShmTransport(const Options& options, Config config, Connections connections)
    : rank_(options.rank),
      config_(config),
      timeout_(options.timeout),
      connections_(std::move(connections)),
      peerOfRank_(static_cast<size_t>(options.nranks), nullptr) {
  peers_.reserve(connections_.peers.size());
  for (PeerLink& link : connections_.peers) peers_.emplace_back(std::move(link));
  connections_.peers.clear();
  for (Peer& peer : peers_) peerOfRank_[static_cast<size_t>(peer.link.rank)] = &peer;
  seen_ = connections_.doorbell.sequence();
  TRNCCL_INFO(
      "shm: rank %d: %zu peers, FIFO of %llu x %llu bytes per peer (%zu-byte segment), "
      "TRNCCL_SHM_COPY=%s",
      rank_, peers_.size(), static_cast<unsigned long long>(connections_.fifo.slots),
      static_cast<unsigned long long>(connections_.fifo.slotBytes), connections_.own.size(),
      copyPathName(config_.copy));
}

ShmTransport::~ShmTransport() {
  std::atomic_ref<uint32_t>(*connections_.closed).store(1, std::memory_order_release);
  for (Peer& peer : peers_) peer.link.doorbell.ring();
}

Peer& ShmTransport::peerOf(const Request& request, const char* operation) {
  if (request.peer < 0 || static_cast<size_t>(request.peer) >= peerOfRank_.size() ||
      peerOfRank_[static_cast<size_t>(request.peer)] == nullptr)
    throwInvalidArgument("request.peer", "is " + std::to_string(request.peer) +
                                             ", not a shared-memory peer of rank " +
                                             std::to_string(rank_) + " (" + operation + ")");
  if (request.buffer == nullptr && request.bytes > 0)
    throwInvalidArgument("request.buffer", std::string("is NULL for a non-empty ") + operation);
  return *peerOfRank_[static_cast<size_t>(request.peer)];
}

void ShmTransport::isend(Request& request) {
  Peer& peer = peerOf(request, "send");
  request.done = false;
  request.transferred = 0;
  const bool announce =
      request.bytes > 0 && (config_.copy == CopyPath::Cma || request.bytes > kEagerBytes);
  peer.outbox.push_back({&request, announce ? SlotKind::Rts : SlotKind::Eager});
}

void ShmTransport::irecv(Request& request) {
  Peer& peer = peerOf(request, "receive");
  request.done = false;
  request.transferred = 0;
  auto message = peer.incoming.find(request.tag);
  if (message != peer.incoming.end() && message->second.state == Incoming::State::Unexpected) {
    match(peer, message, request);
    return;
  }
  const bool receiving =
      message != peer.incoming.end() && message->second.state == Incoming::State::Receiving;
  if (receiving || !peer.posted.emplace(request.tag, &request).second)
    throwError(trncclInvalidUsage, "rank " + std::to_string(rank_) +
                                       " posted a second receive from " +
                                       describe(request.peer, request.tag) +
                                       " while the first is pending: tags must be unique "
                                       "among the messages in flight between two ranks");
}

void ShmTransport::progress() {
  seen_ = connections_.doorbell.sequence();
  noticeDepartures();
  for (Peer& peer : peers_) unlessBroken(peer, [&] { drain(peer); });
  advancePulls();
  for (Peer& peer : peers_) unlessBroken(peer, [&] { flush(peer); });
  if (pendingError_) std::rethrow_exception(std::exchange(pendingError_, nullptr));
  for (const Peer& peer : peers_) {
    if (!peer.gone.empty() && hasOutstanding(peer)) throwError(trncclRemoteError, peer.gone);
  }
}

void ShmTransport::wait(std::chrono::microseconds maxWait) {
  if (!pulls_.empty() || pendingError_) return;  // work that needs nobody else
  if (interrupted_.exchange(false)) return;
  connections_.doorbell.sleep(seen_, maxWait);
  slept_ = true;
  interrupted_.store(false);  // whatever woke us, the caller is awake now
}

void ShmTransport::interrupt() {
  interrupted_.store(true);
  connections_.doorbell.ring();
}

void ShmTransport::cancelAll() {
  for (Peer& peer : peers_) {
    // Replies stay queued: they concern the peer's requests, not ours.
    peer.outbox.clear();
    for (const auto& [tag, send] : peer.awaitingReply) withdraw(peer, send.announcement);
    peer.awaitingReply.clear();
    peer.posted.clear();
    // A message part-way through the FIFO still sends its remaining chunks:
    // swallow them instead of mistaking them for a new message.
    for (auto entry = peer.incoming.begin(); entry != peer.incoming.end();) {
      Incoming& message = entry->second;
      const bool waitingForCts = message.state == Incoming::State::Unexpected && message.announced;
      if (message.arrived < message.total && !waitingForCts) {
        message.state = Incoming::State::Discarding;
        message.receive = nullptr;
        message.staging = {};
        ++entry;
      } else {
        entry = peer.incoming.erase(entry);
      }
    }
  }
  pulls_.clear();
  pendingError_ = nullptr;
}

// --- Receiving --------------------------------------------------------------

void ShmTransport::drain(Peer& peer) {
  FifoReader& fifo = peer.link.fromPeer;
  while (fifo.hasNext()) {
    const std::byte* payload = nullptr;
    const SlotHeader slot = fifo.next(&payload);
    switch (slot.kind) {
      case SlotKind::Eager:
      case SlotKind::Rts: onMessage(peer, slot, payload); break;
      case SlotKind::Data: onData(peer, slot, payload); break;
      case SlotKind::Cts:
      case SlotKind::Fin:
      case SlotKind::Nack: onReply(peer, slot); break;
    }
    fifo.consume();
  }
  if (fifo.release()) peer.link.doorbell.ring();
}

void ShmTransport::onMessage(Peer& peer, const SlotHeader& slot, const std::byte* payload) {
  const bool announced = slot.kind == SlotKind::Rts;
  if (!announced && (slot.total > kEagerBytes || slot.offset != 0 || slot.bytes > slot.total))
    protocolError(peer, "eager message of " + std::to_string(slot.total) + " bytes starting with " +
                            std::to_string(slot.bytes) + " bytes at offset " +
                            std::to_string(slot.offset));
  if (announced && !IncomingAnnouncements::valid(slot.announcement))
    protocolError(peer, "an announcement in slot " +
                            std::to_string(static_cast<uint32_t>(slot.announcement)) +
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
    protocolError(peer, std::to_string(slot.bytes) + " bytes at offset " +
                            std::to_string(slot.offset) + " of a " + std::to_string(m.total) +
                            "-byte message (tag " + std::to_string(slot.tag) + ") of which " +
                            std::to_string(m.arrived) + " bytes had arrived");
  deliver(peer, message, payload, slot.bytes);
}

void ShmTransport::onReply(Peer& peer, const SlotHeader& slot) {
  auto waiting = peer.awaitingReply.find(slot.tag);
  // None, or a later send with the same tag: the send it answers was cancelled.
  if (waiting == peer.awaitingReply.end() || waiting->second.announcement != slot.announcement)
    return;
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
    fail(trncclInvalidUsage,
         "rank " + std::to_string(rank_) + " sent a " + std::to_string(send.bytes) +
             "-byte message to " + describe(peer.link.rank, slot.tag) +
             ", but the receive posted for it holds only " + std::to_string(slot.total) + " bytes");
  }
}

void ShmTransport::match(Peer& peer, IncomingMap::iterator message, Request& receive) {
  Incoming& m = message->second;
  const Tag tag = message->first;
  if (m.total > receive.bytes) {
    fail(trncclInvalidUsage, "the message from " + describe(peer.link.rank, tag) + " is " +
                                 std::to_string(m.total) + " bytes, larger than the " +
                                 std::to_string(receive.bytes) + "-byte receive rank " +
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
  const bool singleCopy =
      m.announced && singleCopyFrom(peer) && !IncomingAnnouncements::streamOnly(m.announcement);
  TRNCCL_TRACE("shm: rank %d: %llu-byte message from %s: %s", rank_,
               static_cast<unsigned long long>(m.total), describe(peer.link.rank, tag).c_str(),
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

void ShmTransport::deliver(Peer& peer, IncomingMap::iterator message, const std::byte* payload,
                           uint64_t bytes) {
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
    case CopyPath::Fifo: return false;
    case CopyPath::Auto: return process.isThisProcess();
    case CopyPath::Cma:
      return process.isThisProcess() || (process.addressable() && !singleCopyRefused_);
  }
  return false;
}

void ShmTransport::advancePulls() {
  std::erase_if(pulls_, [this](Pull& pull) { return advance(pull); });
  // Only now: reposting may start a new pull.
  for (Request* receive : withdrawnReceives_)
    repost(*peerOfRank_[static_cast<size_t>(receive->peer)], *receive);
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
  const int err =
      peer.link.process.copyFrom(static_cast<std::byte*>(pull.receive->buffer) + pull.offset,
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
  const std::string what = "single-copy read of the " + std::to_string(pull.total) +
                           "-byte message from " + who(peer) + " (tag " + std::to_string(pull.tag) +
                           ")";
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

// --- Sending ----------------------------------------------------------------

void ShmTransport::flush(Peer& peer) {
  FifoWriter& fifo = peer.link.toPeer;
  while (!peer.replies.empty() && fifo.hasSpace()) {
    const Reply& reply = peer.replies.front();
    fifo.write({reply.kind, 0, reply.tag, reply.total, 0, 0, 0, reply.announcement}, nullptr);
    peer.replies.pop_front();
  }
  while (peer.replies.empty() && !peer.outbox.empty() && fifo.hasSpace()) {
    Outgoing& out = peer.outbox.front();
    Request& send = *out.request;
    if (out.kind == SlotKind::Rts) {
      auto [waiting, fresh] = peer.awaitingReply.try_emplace(send.tag, AnnouncedSend{&send, 0});
      if (fresh) {
        waiting->second.announcement = peer.link.announcementsToPeer.announce();
        fifo.write({SlotKind::Rts, 0, send.tag, send.bytes, 0, 0,
                    reinterpret_cast<uint64_t>(send.buffer), waiting->second.announcement},
                   nullptr);
      } else {
        fail(trncclInvalidUsage, "rank " + std::to_string(rank_) + " sent a second message to " +
                                     describe(peer.link.rank, send.tag) +
                                     " while the first is in flight");
      }
      peer.outbox.pop_front();
      continue;
    }
    const uint64_t bytes = std::min(connections_.fifo.slotBytes, send.bytes - out.offset);
    const SlotKind kind =
        out.kind == SlotKind::Eager && out.offset == 0 ? SlotKind::Eager : SlotKind::Data;
    fifo.write({kind, 0, send.tag, send.bytes, out.offset, bytes, 0, 0},
               static_cast<const std::byte*>(send.buffer) + out.offset);
    out.offset += bytes;
    if (out.offset == send.bytes) {
      complete(send, send.bytes);
      peer.outbox.pop_front();
    }
  }
  if (fifo.publish()) peer.link.doorbell.ring();
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
      TRNCCL_WARN("shm: rank %d: %s is still reading a cancelled send's buffer after %lld ms",
                  rank_, who(peer).c_str(), static_cast<long long>(timeout_.count()));
      return;
    }
    backoff.pause([](std::chrono::microseconds maxWait) { std::this_thread::sleep_for(maxWait); });
  }
  announcements.release(announcement);
}

// --- Failures ---------------------------------------------------------------

// Runs a step that reads the peer's shared memory; a peer found corrupting
// it is never read again, and requests with it fail.
template <class Step>
void ShmTransport::unlessBroken(Peer& peer, Step&& step) {
  if (peer.broken) return;
  try {
    step();
  } catch (const Error& e) {
    if (e.code() != trncclRemoteError) throw;
    peer.broken = true;
    peer.gone = e.what();
    TRNCCL_WARN("shm: rank %d: %s", rank_, e.what());
  }
}

void ShmTransport::protocolError(const Peer& peer, const std::string& what) const {
  throwError(trncclRemoteError, who(peer) + " broke the shared-memory protocol with rank " +
                                    std::to_string(rank_) + ": it sent " + what);
}

void ShmTransport::fail(trncclResult_t code, const std::string& message) {
  if (!pendingError_) pendingError_ = std::make_exception_ptr(Error(code, message));
}

bool ShmTransport::hasOutstanding(const Peer& peer) const {
  return !peer.outbox.empty() || !peer.awaitingReply.empty() || !peer.posted.empty() ||
         std::any_of(
             peer.incoming.begin(), peer.incoming.end(),
             [](const auto& entry) { return entry.second.state == Incoming::State::Receiving; }) ||
         std::any_of(pulls_.begin(), pulls_.end(),
                     [&peer](const Pull& pull) { return pull.peer == &peer; });
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
    const char* how = nullptr;
    if (std::atomic_ref<uint32_t>(*peer.link.closed).load(std::memory_order_acquire) != 0)
      how = " closed its shared-memory transport";
    else if (peer.link.process.hasExited())
      how = " exited";
    if (how != nullptr)
      peer.gone = who(peer) + how + " while rank " + std::to_string(rank_) +
                  " still had requests outstanding with it";
  }
}

std::string ShmTransport::who(const Peer& peer) const {
  return "rank " + std::to_string(peer.link.rank) + " (pid " +
         std::to_string(peer.link.process.pid()) + ")";
}

}  // namespace
}  // namespace trnccl::transport::shm

namespace trnccl::transport {

std::unique_ptr<Transport> createShmTransport(const Options& options) {
  const shm::Config config = shm::readConfig();
  return std::make_unique<shm::ShmTransport>(options, config, shm::connect(options, config));
}

}  // namespace trnccl::transport
