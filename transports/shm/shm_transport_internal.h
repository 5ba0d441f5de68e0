// The shared-memory transport's protocol.
//
// Each rank owns one segment (layout.h) holding its doorbell and, for each
// peer, a FIFO that only that peer writes (fifo.h). A message from A to B
// travels through A's FIFO in B's segment, as slots:
//
//   eager (up to kEagerBytes, which one slot holds; zero-byte messages always):
//     A writes Eager(tag, total, the whole message) into one slot, at once
//     from isend() when nothing is queued before it; the send is complete
//     once it is in the FIFO. B copies it into the posted receive, or into a
//     buffer of its `early` pool until one is posted. A sends eager only while
//     few of its eager messages wait undelivered at B (eager_window.h);
//     beyond that it announces them. Neither side allocates,
//     hashes or locks on this path once warm: receives wait in a short
//     per-peer list, and small queues keep their storage (ring_queue.h).
//   announced (larger, or every non-empty message with TRNCCL_SHM_COPY=cma):
//     A writes Rts(tag, total, address of A's buffer, announcement) and waits.
//     The announcement names a state word in A's segment (B maps it too) that
//     says whether A's buffer still holds the message (announcement.h). Once
//     B has a receive for it (one too small: Nack to A, InvalidUsage on both
//     sides), B picks the path (config.h: CopyPath):
//       single copy: B reads A's buffer itself (memcpy when A is a thread of
//         B's process, or out of B's mapping of A's registered file when the
//         Rts names one (shared_files.h), process_vm_readv otherwise), moving the word Announced
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
// no cycle of full FIFOs can deadlock. A closing transport first sends the
// replies it still owes to live peers (sendLastReplies).
//
// Ordering and waking: a slot is published by a release store of its stamp
// and read after an acquire load of it (fifo.h); whoever publishes then rings
// the receiver's doorbell only if the receiver sleeps (doorbell.h:
// ringIfSleeping), and a receiver that frees slots a sender waits for rings
// the sender's. progress() reads its own doorbell's sequence before it looks
// at anything; wait() registers as a sleeper, looks at every FIFO's next slot
// once more, and sleeps only while nothing arrived and the sequence is
// unchanged, so nothing published after the look is missed.
//
// Link emulation (Options::emulation, link_pacing.h): a send reserves its
// path when it is posted and waits in its peer's `paced` queue until the
// modelled links would have delivered it; only then does its first slot (Eager
// or Rts) go out. So the receiver cannot see it earlier, and the send cannot
// complete earlier. What follows the first slot (Cts, Data, Fin) is not paced
// again: the message's time was paid in full. wait() sleeps no longer than
// until the earliest held send is due.
//
// Failures: everything read from shared memory is validated (fifo.h, and the
// message checks here; an announcement's word is only ever compared with the
// exact value expected); a peer's impossible values give trncclRemoteError
// naming it. While a rank has requests outstanding with a peer it checks,
// every kLivenessInterval, whether the peer's process exited or its transport
// closed. It decides that before it drains the peer's FIFO, so whatever the
// peer published before it went is still delivered.
//
// This header holds the transport's state; its members are defined in
// shm_transport.cc (requests and waiting), shm_receive.cc, shm_send.cc and
// shm_failures.cc.
#pragma once

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/backoff.h"
#include "base/error.h"
#include "base/log.h"
#include "base/owned_counter.h"
#include "transports/shm/config.h"
#include "transports/shm/eager_window.h"
#include "transports/shm/link_pacing.h"
#include "transports/shm/ring_queue.h"
#include "transports/shm/setup.h"
#include "transports/shm/shared_files.h"

namespace trnccl::transport::shm {

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

// A send held back by link emulation until `dueNs` (monotonicNs()).
struct PacedSend {
  Outgoing send;
  uint64_t dueNs;
};
inline constexpr uint64_t kNoneDue = UINT64_MAX;

// An announced message (Rts) from a peer, waiting for its receive or
// streaming into it.
struct Incoming {
  enum class State { Unexpected, Receiving, Discarding };
  State state = State::Unexpected;
  uint64_t address = 0;             // where the bytes wait in the sender's buffer
  FileRef file;                     // or in its registered file (shared_files.h)
  AnnouncementId announcement = 0;  // whether they still do
  uint64_t total = 0;
  uint64_t arrived = 0;
  Request* receive = nullptr;  // Receiving
};
using IncomingMap = std::unordered_map<Tag, Incoming>;

// An eager message that arrived before its receive. Its buffer outlives it,
// for the next early message (bytes.size() is a high-water mark).
struct EarlyMessage {
  Tag tag = 0;
  uint64_t total = 0;
  std::vector<std::byte> bytes;
};

// A send that announced itself and waits for the receiver's reply.
struct AnnouncedSend {
  Request* request;
  AnnouncementId announcement;
};

struct Peer {
  explicit Peer(PeerLink l) : link(std::move(l)) {}
  PeerLink link;
  RingQueue<Reply> replies;
  RingQueue<PacedSend> paced;  // before `outbox`, in due order
  RingQueue<Outgoing> outbox;
  EagerWindow eagerWindow;                               // how far our eager sends may run ahead of the peer
  std::unordered_map<Tag, AnnouncedSend> awaitingReply;  // announced sends
  // Receives nothing has arrived for: a handful at a time (the executor's
  // window), so a list beats a hash map.
  std::vector<Request*> posted;
  IncomingMap incoming;
  std::vector<EarlyMessage> early;  // [0, earlyCount) hold messages; the rest are spare buffers
  size_t earlyCount = 0;
  uint64_t largestEarly = 0;  // bytes
  PeerFiles files;            // its registered files we have mapped
  std::string gone;           // why requests with this peer can no longer complete
  bool broken = false;        // it corrupted shared memory: never read it again
};

// A receive filled by single copy straight from the sender's buffer.
struct Pull {
  Peer* peer;
  Request* receive;
  Tag tag;
  uint64_t address;
  const std::byte* mapped;  // the message in our mapping of the sender's file; null: read `address`
  AnnouncementId announcement;
  uint64_t total;
  uint64_t offset = 0;
};

// Completes a request and counts its bytes as moved (railStatus).
inline void complete(Request& request, uint64_t bytes, OwnedCounter& moved) {
  request.transferred = bytes;
  request.done = true;
  moved.add(bytes);
}

inline std::string describe(int rank, Tag tag) {
  return "rank " + std::to_string(rank) + " (tag " + std::to_string(tag) + ")";
}

class ShmTransport final : public Transport, public BlockBoard {
 public:
  ShmTransport(const Options& options, Config config, Connections connections);
  ~ShmTransport() override;

  const char* name() const override { return "shm"; }
  void isend(Request& request) override;
  void irecv(Request& request) override;
  bool arrived(int peer, Tag tag) const override;
  void registerRegion(const SharedRegion& region) override { registeredFiles_.add(region); }
  void deregisterRegion(const void* base) override { registeredFiles_.remove(base); }
  void progress() override;
  void wait(std::chrono::microseconds maxWait) override;
  void interrupt() override;
  void cancelAll() override;
  std::vector<std::string> departures() override;
  MemoryUse memoryUse() const override;
  std::vector<RailStatus> railStatus() const override;
  BlockBoard* blockBoard() override { return boardOffered_ ? this : nullptr; }

  // BlockBoard (shm_board.cc).
  size_t blockBytes() const override { return kBoardBlockBytes; }
  void* ownBlock(uint64_t call, size_t bytes) override;
  void publish(uint64_t call, size_t bytes) override;
  void wakePeers() override;
  const void* peerBlock(int rank, uint64_t call, size_t bytes) override;

 private:
  // The peer of that rank; null for a rank that is not a peer.
  Peer* peerAt(int rank) const {
    return rank >= 0 && static_cast<size_t>(rank) < peerOfRank_.size() ? peerOfRank_[static_cast<size_t>(rank)]
                                                                       : nullptr;
  }
  Peer& peerOf(const Request& request, const char* operation);
  // Receiving.
  void drain(Peer& peer);
  // Whether any peer's FIFO holds a slot not yet drained (wait()'s last look).
  bool anythingPublished() const;
  void checkNew(Peer& peer, Tag tag);
  void onEager(Peer& peer, const SlotHeader& slot, const std::byte* payload);
  void onAnnouncement(Peer& peer, const SlotHeader& slot);
  void onData(Peer& peer, const SlotHeader& slot, const std::byte* payload);
  void onReply(Peer& peer, const SlotHeader& slot);
  static constexpr size_t kNotFound = SIZE_MAX;
  static size_t findPosted(const Peer& peer, Tag tag);
  static size_t findEarly(const Peer& peer, Tag tag);
  // Removes the posted receive for `tag`; null if there is none.
  Request* takePosted(Peer& peer, Tag tag);
  // Completes `receive` with the early message at `index`, which it removes.
  void takeEarly(Peer& peer, size_t index, Request& receive);
  // Fails the call whose receive is too small for its message.
  void tooSmall(const Peer& peer, Tag tag, uint64_t total, const Request& receive);
  void match(Peer& peer, IncomingMap::iterator message, Request& receive);
  bool isWithdrawn(const Peer& peer, const Incoming& message) const;
  void repost(Peer& peer, Request& receive);
  bool singleCopyFrom(const Peer& peer) const;
  void advancePulls();
  bool advance(Pull& pull);
  // Sending.
  void hold(Peer& peer, const Outgoing& send);
  void releaseDue();
  void flush(Peer& peer);
  // Reserves our FIFO's slots in the peer's segment before their first use.
  void commitFifo(Peer& peer);
  void withdraw(Peer& peer, AnnouncementId announcement);
  void sendLastReplies() noexcept;
  // Failures.
  template <class Step>
  void unlessBroken(Peer& peer, Step&& step);
  [[noreturn]] void protocolError(const Peer& peer, const std::string& what) const;
  void fail(trncclResult_t code, const std::string& message);
  bool hasOutstanding(const Peer& peer) const;
  void noticeDepartures();
  // " exited" or " closed its shared-memory transport"; null while it is here.
  const char* howGone(const Peer& peer) const;
  std::string who(const Peer& peer) const;

  const int rank_;
  const Config config_;
  const std::chrono::milliseconds timeout_;
  const bool oversubscribed_;  // Options::oversubscribed: auto pulls in one copy
  Connections connections_;
  uint64_t committedBytes_ = 0;  // the FIFO slots this rank committed in its peers' segments
  std::vector<Peer> peers_;
  std::vector<Peer*> peerOfRank_;     // null for ranks that are not peers
  std::unique_ptr<LinkPacer> pacer_;  // null unless links are emulated
  uint64_t nextDueNs_ = kNoneDue;     // the earliest held send's due time
  std::vector<Pull> pulls_;
  RegisteredFiles registeredFiles_;
  std::vector<Request*> withdrawnReceives_;  // their pulls found the message withdrawn
  std::exception_ptr pendingError_;          // the first failure, thrown by the next progress()
  OwnedCounter bytesSent_, bytesReceived_;   // of completed requests: the one rail, "shm"
  bool singleCopyRefused_ = false;
  uint32_t seen_ = 0;  // our doorbell's sequence when progress() last looked
  std::chrono::steady_clock::time_point lastLivenessCheck_{};
  uint64_t progressCalls_ = 0;
  bool slept_ = false;
  std::atomic<bool> interrupted_{false};
  // The block board: offered when every other rank is a peer; the block
  // peerBlock() last found missing (rank -1: none), which wait() looks for.
  bool boardOffered_ = false;
  int awaitedRank_ = -1;
  uint64_t awaitedCall_ = 0;
  uint32_t boardMisses_ = 0;
};

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

}  // namespace trnccl::transport::shm
