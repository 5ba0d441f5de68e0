// The libfabric transport's state; see wire.h for the protocol.
//
// Sending: a message of up to the eager limit travels inside its control
// message, copied there at isend (so a cancelled send never reads the user's
// buffer again); it is complete when the provider completes that send. A
// larger message announces itself (Rts) and waits: the receiver, once it has
// a receive for it, posts receives for its first chunks (chunk c on rail
// c % rails, into the user's buffer at c * chunkBytes) and says so (Cts); the
// sender then posts those chunks straight from the user's buffer. The receiver
// keeps kChunksInFlightPerRail chunks per rail posted until all have arrived.
// A sender only ever posts a chunk its receiver has a receive posted for, so
// no data is ever buffered unexpected, and every posted chunk completes while
// both ranks progress.
//
// Matching never depends on order: announcements are matched to receives by
// (peer, user tag); chunks by their libfabric tag (the receive's number and
// the chunk), on directed receives. Replies name the send they answer.
//
// Bounded work per rail: at most `sendLimit` sends and `receiveLimit` receives
// are posted to a rail at a time; the rest wait in the rail's queues, control
// messages first. A post that returns -FI_EAGAIN stays first in its queue
// until the next progress() has read the completion queue.
//
// Cancelling (cancelAll): sends forget their messages. A queued chunk becomes
// an empty marker (its receive was promised to the sender: something must
// complete it), a posted chunk is waited for (its receive is posted, so it
// completes), a Cts for a forgotten send is answered with markers; a receiver
// that sees a marker knows the message was withdrawn and puts its receive back
// to wait for the next message with the tag. Receives cancel their posted
// chunks (fi_cancel) and wait for the provider to confirm; a chunk the sender
// was promised gets a receive into the transport's sink buffer instead, so the
// sender's chunk still completes. Once cancelAll returns, no posted operation
// points into a cancelled request's buffer.
//
// Rail failover (more than one rail; wire.h): the receiver picks each
// chunk's rail, round robin over the rails that deliver from that peer, and
// says which in the Cts. A chunk granted on a rail that has delivered nothing
// from the peer for `railStall`, while the peer was heard from otherwise since
// (data on another rail, or any control message: a Ping asks for a Pong when
// nothing else comes), means the rail is lost for that peer: its posted
// chunks' receives are cancelled and left behind (a provider may be unable
// to withdraw one whose rendezvous is under way: it lands in the operation's
// own buffer, never the user's, see chunkReceive) and new ones are granted
// on the others; its queued ones move.
// A chunk that fails on a rail, or whose receive the provider withdraws,
// moves the same way. The sender, asked for a chunk again, forgets its
// earlier operation (the provider may still send it when the link returns:
// over several rails every chunk is sent from a copy of its own, so that
// it never reads a buffer the user has back) and sends it again where it is
// asked; it completes the send on the receiver's Done. A lost rail gets one chunk again after
// kStallsBeforeRetry stall periods, and after each further stall: when that
// chunk arrives, the rail is back, and the chunks moved off it are received
// into the sink once, in case their sends still come (a rendezvous send
// waits for its receive: unanswered, it would hold its operation until the
// transport closes); those that have not come within a stall period are
// cancelled. Control messages are numbered and kept until acknowledged
// (wire.h): when one waits a stall period, the peer is pinged on every rail,
// and a Pong over another rail that still lacks it means the control rail
// lost it; everything unacknowledged goes again on the next rail
// (loseControlRail), whose chunks move too. Control messages stay there
// until that rail fails in turn.
//
// Failures: a failed completion (fi_cq_readerr) becomes an Error naming the
// peer's rank and address and what the provider said; a peer found to have
// exited (peers on this host, checked every kLivenessInterval while requests
// are outstanding with them) or to have closed its transport fails the
// requests that still need it.
//
// Closing: the destructor cancels everything, tells every peer (Bye, with the
// number of control messages sent before it) and lingers, progressing, until
// every live peer has closed too or nothing has completed for
// kQuietBeforeClose: the acknowledgements a provider owes its peers go out
// while it is progressed. Then it closes every rail, endpoint first.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "base/owned_counter.h"
#include "base/peer_process.h"
#include "base/wakeup.h"
#include "transports/ofi/config.h"
#include "transports/ofi/endpoint_keeper.h"
#include "transports/ofi/fault_injection.h"
#include "transports/ofi/operation.h"
#include "transports/ofi/rail.h"
#include "transports/ofi/wire.h"
#include "transports/transport.h"

namespace trnccl::transport::ofi {

// An Eager or Rts that arrived before its receive was posted.
struct Announcement {
  ControlKind kind;
  uint64_t send;
  uint64_t bytes;
  uint32_t dataChecksum;           // Rts (wire.h)
  std::vector<std::byte> payload;  // Eager
};

using Clock = std::chrono::steady_clock;

// One rail as it carries a peer's chunks to this rank (rail failover).
struct PeerRail {
  bool lost = false;
  bool retrying = false;          // lost, and one chunk is granted on it again
  Clock::time_point lastArrival;  // of anything from the peer on it
  Clock::time_point lostAt;       // lost, or its last retry stalled
  // Chunks granted on it and moved away, whose sends may still come (tag,
  // bytes): when the rail is back they are received into the sink, so that
  // the sender's provider completes them and forgets them.
  std::vector<std::pair<uint64_t, uint64_t>> strays;
};

// Control messages with one peer over one rail.
struct ControlRail {
  uint32_t credits = 0;  // control messages it can take from us now on this rail
  uint32_t owed = 0;     // our control receives on it posted again, not yet reported
  bool lost = false;     // more than one rail: our control messages stopped arriving over it
};

struct Peer {
  int rank = -1;
  std::vector<fi_addr_t> fiAddress;                  // per rail
  std::string addressText;                           // rail 0's, e.g. "fi_sockaddr_in://10.0.0.3:4711"
  std::string name;                                  // "rank 3 (fi_sockaddr_in://10.0.0.3:4711, pid 42)"
  PeerProcess process;                               // alive? (peers on this host only)
  std::unordered_map<Tag, Request*> posted;          // receives nothing has arrived for
  std::unordered_map<Tag, Announcement> unexpected;  // arrivals no receive was posted for
  std::unordered_map<Tag, uint64_t> receiving;       // receives being filled: their numbers
  std::deque<Operation*> controlQueue;               // control messages waiting for credits
  std::vector<ControlRail> control;                  // per rail (one entry over one rail)
  uint32_t maxCredits = 0;                           // the control receives it keeps posted for us, per rail
  size_t controlArrivals = 0;                        // the rail its last control message came on
  uint64_t controlSent = 0, controlReceived = 0;     // over several rails: numbered; had without a gap
  std::set<uint64_t> receivedAhead;                  // more than one rail: numbers had after a gap
  std::deque<Operation*> unacked;                    // more than one rail: numbered, kept until acknowledged
  uint64_t acked = 0;                                // of ours, the most it has acknowledged
  std::optional<uint64_t> byeAfter;                  // it closed after sending this many control messages
  int outstanding = 0;                               // user requests in progress with it
  int draining = 0;                                  // cancelled operations cancelAll waits for
  std::optional<Error> failure;                      // why requests with it can no longer complete
  std::vector<PeerRail> rails;                       // more than one rail: how each delivers from it
  uint32_t nextRail = 0;                             // round robin over the rails that deliver
  Clock::time_point heardAt;                         // its last control message
  Clock::time_point pingedAt;                        // our last Ping to it
  bool closed() const { return byeAfter && controlReceived >= *byeAfter; }
  // The rail our control messages go on: the first not lost.
  int controlRail() const;
  // The rail whose control receives we have posted again most, unreported.
  size_t mostOwedRail() const;
  // More than one rail: whether a rail other than `rail` still delivers from it.
  bool anotherRailDelivers(int rail) const;
};

// A send in progress: its control message, then its chunks.
struct OutgoingMessage {
  Request* request = nullptr;
  Peer* peer = nullptr;
  uint32_t chunks = 0;   // 0: eager
  uint32_t granted = 0;  // chunks the receiver asked for
  uint32_t finished = 0;
  std::vector<uint64_t> grantOf;  // more than one rail: per chunk, the latest Cts asking for it (0: none)
  std::vector<Operation*> ops;    // queued or posted
};

// A receive matched with an announced message, being filled chunk by chunk.
struct IncomingMessage {
  Peer* peer = nullptr;
  Request* request = nullptr;  // null once cancelled: its promised chunks drain into the sink
  Tag tag = 0;
  uint64_t send = 0;
  uint64_t bytes = 0;
  uint32_t dataChecksum = 0;  // the sender's CRC-32 of it (checksums on)
  uint32_t chunks = 0;
  uint32_t nextChunk = 0;  // the next to post a receive for
  uint64_t grants = 0;     // the Cts sent for it
  uint32_t finished = 0;
  bool withdrawn = false;               // a marker arrived: the sender cancelled it
  std::vector<Operation*> newlyPosted;  // posted, not yet promised in a Cts
  std::vector<Operation*> ops;          // queued or posted
};

// A control message's header, at the start of its operation's storage.
inline ControlHeader& headerOf(Operation& op) { return *reinterpret_cast<ControlHeader*>(op.storage.data()); }
inline const ControlHeader& headerOf(const Operation& op) {
  return *reinterpret_cast<const ControlHeader*>(op.storage.data());
}

struct RailQueues {
  std::deque<Operation*> sends, receives;
  size_t sendsPosted = 0, receivesPosted = 0;
  size_t sendLimit = 0, receiveLimit = 0;
  bool sendsBlocked = false, receivesBlocked = false;  // -FI_EAGAIN until the next read
  OwnedCounter bytesSent, bytesReceived;               // of completed operations (railStatus)
  OwnedCounter lostPeers, failovers;                   // peers it delivers nothing from; times that began
};

class OfiTransport final : public Transport {
 public:
  OfiTransport(const Options& options, const Config& config);
  ~OfiTransport() override;

  const char* name() const override { return "ofi"; }
  std::string description() const override;
  std::vector<std::string> departures() override;
  MemoryUse memoryUse() const override;
  std::vector<RailStatus> railStatus() const override;
  void isend(Request& request) override;
  void irecv(Request& request) override;
  bool arrived(int peer, Tag tag) const override;
  void progress() override;
  void wait(std::chrono::microseconds maxWait) override;
  void interrupt() override;
  void cancelAll() override;

  // Tests: what the fault layer did (all zero without TRNCCL_OFI_FAULTS).
  FaultStats faultStats() const;
  const std::string& provider() const { return provider_; }
  int rails() const { return static_cast<int>(rails_.size()); }

 private:
  // Setup (ofi_setup.cc).
  void connect(const Options& options);
  // Posting (ofi_post.cc).
  void submit(Operation& op, bool first = false);
  void pump();
  void postQueued(int rail, bool sends);
  ssize_t post(Operation& op);
  Operation& controlOperation(Peer& peer, int rail, const ControlHeader& header, const void* payload = nullptr,
                              size_t payloadBytes = 0);
  Operation& sendControl(Peer& peer, const ControlHeader& header, const void* payload = nullptr,
                         size_t payloadBytes = 0, OutgoingMessage* message = nullptr);
  void flushControl(Peer& peer);
  void spendCredit(Peer& peer, Operation& op, int rail);
  void postControlReceive(Operation& op);
  // Completions (ofi_completion.cc).
  void poll();
  void onCompletion(const RawCompletion& completion);
  void onFailedOperation(Operation& op, const RawCompletion& completion);
  bool failOverChunk(Peer& peer, Operation& op, const RawCompletion& completion);
  // Receiving (ofi_receive.cc).
  void onControl(Peer& peer, const std::byte* data, size_t length, int rail);
  bool firstCopy(Peer& peer, const ControlHeader& header);
  void onAcked(Peer& peer, uint64_t acked);
  void onPong(Peer& peer, int rail);
  void loseControlRail(Peer& peer, const std::string& why);
  void sendPing(Peer& peer, int rail, ControlKind kind);
  void pingPeer(Peer& peer, Clock::time_point now);
  void sendAgain(Peer& peer, Operation& op);
  void onControlSent(Peer& peer, Operation& op);
  Operation& copyOf(Operation& op);
  void onAnnouncement(Peer& peer, const ControlHeader& header, const std::byte* payload);
  void match(Peer& peer, Request& receive, const Announcement& announced, const std::byte* payload);
  void postChunks(IncomingMessage& message, uint64_t number);
  Operation& chunkReceive(const IncomingMessage& message, uint64_t number, uint32_t chunk);
  void grant();
  void onChunkReceived(Operation& op, size_t length, bool cancelled);
  // Whether a chunk's receive belongs to a message still being received (not cancelled).
  bool receiving(const Operation& op) const;
  void endIncoming(uint64_t number);
  // Sending (ofi_send.cc).
  void onCts(Peer& peer, const ControlHeader& header);
  void onNack(Peer& peer, const ControlHeader& header);
  void sendMarkers(Peer& peer, uint64_t receive, uint32_t first, uint32_t count, int rail);
  void onChunkSent(Operation& op);
  void onDone(Peer& peer, const ControlHeader& header);
  void forget(OutgoingMessage& message, uint32_t chunk);
  void detach(Operation& op);
  // Rail failover (ofi_failover.cc).
  bool failsOver() const { return rails_.size() > 1; }
  int railFor(Peer& peer);
  void watchRails();
  void loseRail(Peer& peer, int rail, const std::string& why);
  void moveChunk(Peer& peer, Operation& op);
  void heardOnRail(Peer& peer, int rail);
  void drainStrays(Peer& peer, int rail);
  // Failures and waiting (ofi_failures.cc, ofi_wait.cc).
  Peer& peerOf(const Request& request, const char* operation);
  void complete(Peer& peer, Request& request, size_t bytes);
  void failRequest(Peer& peer, trncclResult_t code, const std::string& message);
  void failPeer(Peer& peer, const Error& error);
  void checkLiveness(bool everyPeer);
  bool hasPostableWork() const;
  bool readyToSleep();
  bool blockedByClose(const Peer& peer) const;
  void throwPending();
  void waitForCancelled();
  void linger();
  uint64_t nowNs() const;

  const int rank_;
  const Config config_;
  const std::chrono::milliseconds timeout_;
  std::string provider_;
  EndpointKeeper keeper_;  // outlives the rails of shm endpoints
  // Operations and the sink outlive the rails: the provider holds pointers
  // into them until an endpoint is closed.
  OperationPool pool_;
  std::vector<std::byte> sink_;  // where cancelled receives' promised chunks go
  std::vector<std::unique_ptr<Rail>> rails_;
  std::vector<RailQueues> queues_;
  size_t eagerLimit_ = 0;
  uint64_t chunkBytes_ = 0;
  uint32_t controlReceives_ = 0;  // per peer
  bool checksums_ = false;        // wire.h
  std::vector<Peer> peers_;
  std::vector<Peer*> peerOfRank_;
  std::unordered_map<uint64_t, OutgoingMessage> sends_;     // by send number
  std::unordered_map<uint64_t, IncomingMessage> receives_;  // by receive number
  std::vector<uint64_t> granting_;                          // receives with chunks posted but not yet promised
  std::vector<Operation*> strayReceives_;                   // into the sink, for sends a lost rail held
  std::vector<Operation*> dones_;                           // Done messages whose receive completes once they have left
  uint64_t nextSend_ = 1, nextReceive_ = 1;
  std::optional<FaultInjector<RawCompletion>> faults_;
  std::vector<RawCompletion> completions_;  // scratch for poll()
  std::exception_ptr pendingError_;
  std::chrono::steady_clock::time_point lastLivenessCheck_{}, lastCompletion_{}, lastRailWatch_{};
  bool pollingWithoutFd_ = false;
  Wakeup wakeup_;  // interrupt()
};

}  // namespace trnccl::transport::ofi
