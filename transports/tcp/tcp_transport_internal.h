// The TCP transport's protocol and state (frame.h has the wire format,
// handshake.h the connection set-up).
//
// Sending: a rank writes its eager messages and control frames (Rts, Cts,
// Nack, Cancel) in order on a pair's first connection, and Data frames on
// whichever of the pair's connections is free, taking one chunk at a time
// round-robin from every message cleared to stream. So a small message waits
// behind at most one chunk of a large one, and a large one is striped over all
// connections. Each connection has at most one frame on its way out; header
// and payload leave in one sendmsg, straight from the caller's buffer.
//
// Receiving: progress() polls once without waiting and reads every readable
// connection until the kernel has nothing more (or kReadBudgetBytes), parsing
// frames from a small read-ahead buffer. Payload goes straight from the socket
// into the posted receive once the receive is known (rendezvous data always
// is); only eager messages that nobody has asked for yet wait on the heap.
// Every Data frame is checked against the message it claims to belong to
// before a byte of it is written anywhere.
//
// Cancelling: a send whose first frame never left is forgotten; one that left
// is followed by Cancel(seq, framed), and the payload still unsent of a frame
// part-way out is copied, so the caller's buffer is never read again. The
// receiver drops the message, or, if a receive was filling, puts the receive
// back for the next message with the tag, discarding the cancelled message's
// remaining data as it arrives. A cancelled receive's message is likewise
// discarded as it arrives.
//
// Rail failover (frame.h has the protocol): in a pair with several
// connections, every frame written is kept (an Eager one with a copy of its
// payload, so that its send completes as it leaves; a Data one pointing into
// the send's buffer, so that its send completes once all its frames are
// delivered) until it is delivered: the peer acknowledges it on its
// connection (at once after Data, else every kAckEvery frames, so that small
// messages cost no extra writes or wake-ups), or the connection's kernel has
// nothing left to send or unacknowledged by TCP (everything written is in the
// peer's kernel, which the peer reads whatever the link does next). The
// kernel is asked at most every Config::railStallMs / 4 per connection. A
// connection whose oldest kept frame is older than Config::railStallMs while
// its kernel holds data and heard no TCP acknowledgement for that long (a
// link that is down, not a peer that is merely busy) is marked down while
// another connection is up: its kept frames go again on the others (Eager,
// Rts, Cts, Nack and Cancel ahead of every later one, on the next connection
// up, which carries them from then on), and nothing new is written to it.
// The kernel keeps retrying what it holds; once it has nothing left
// unacknowledged, the link works again, and the connection is used again. The receiver acts on the first whole copy of
// each frame number: a copy arriving later, or the rest of a copy whose twin finished first, is read and dropped;
// payload bytes land only while the frame is not yet whole, and both copies carry the same bytes. A connection that
// fails outright while down is closed alone.
//
// Failures: a peer is gone once all its connections have closed, or as soon
// as one fails otherwise (closes in the middle of a frame, resets, or carries
// a frame that breaks the rules: parseFrame, and the message checks here);
// then every connection with it ends, and from then on progress() throws
// RemoteError naming its rank and address while requests with it are
// outstanding. (A connection closed between frames is read no more, but the
// others are read to their end: a peer that sent a message and left has sent
// it.)
//
// Members are defined in tcp_transport.cc (requests, waiting, failures),
// tcp_receive.cc and tcp_send.cc.
#pragma once

#include <poll.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <exception>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "base/log.h"
#include "base/owned_counter.h"
#include "base/socket.h"
#include "base/wakeup.h"
#include "transports/tcp/frame.h"
#include "transports/tcp/handshake.h"
#include "transports/transport.h"

namespace trnccl::transport::tcp {

using Seq = uint64_t;
using FrameNumber = uint64_t;
using Clock = std::chrono::steady_clock;

// Bytes read ahead of the frame being parsed, per connection.
inline constexpr size_t kReadAheadBytes = 64 * 1024;
// A payload remainder at least this large is read straight into its buffer.
inline constexpr uint64_t kDirectReadBytes = 4 * 1024;
// Bytes one progress() reads from one connection's kernel buffer, so that all
// connections get their turn.
inline constexpr uint64_t kReadBudgetBytes = 1024 * 1024;

// A frame on its way out.
struct OutFrame {
  FrameHeader header{};
  const std::byte* payload = nullptr;  // the caller's buffer, or `kept`
  std::vector<std::byte> kept;         // the payload, once the caller's buffer may no longer be read
  size_t sent = 0;                     // bytes of header and payload written
  // A copy goes on another connection, which keeps and counts that one.
  bool orphan = false;
  size_t size() const { return sizeof(FrameHeader) + header.length; }
};

// Makes a frame independent of the caller's buffer, copying its payload into
// `buffer` (a recycled one: no fresh pages to fault in).
void keepPayload(OutFrame& frame, std::vector<std::byte> buffer = {});

// A numbered frame written whole, kept until the peer acknowledges it.
struct Unacked {
  OutFrame frame;
  uint64_t count;        // its place among the numbered frames begun on its connection (1, 2, ...)
  Clock::time_point at;  // when it began to be written
};

// The frames arriving on one connection.
struct InStream {
  std::vector<std::byte> buffer;  // kReadAheadBytes once the peer first sends (lazy)
  size_t begin = 0;               // bytes read ahead: [begin, end)
  size_t end = 0;
  bool inPayload = false;
  FrameHeader frame{};  // inPayload: the frame whose payload is arriving
  uint64_t payloadDone = 0;
  size_t readAhead() const { return end - begin; }
};

struct Connection {
  net::Socket socket;  // closed once the peer closed it
  std::optional<OutFrame> out;
  InStream in;
  // Failover (frames numbered): sending.
  Clock::time_point outSince;   // when `out` began
  uint64_t begun = 0;           // numbered frames begun on it
  std::deque<Unacked> unacked;  // written whole, not known delivered, oldest first
  bool down = false;            // stalled: nothing new goes on it
  Clock::time_point checkedAt;  // when its kernel was last asked
  // Receiving.
  uint64_t readWhole = 0;  // numbered frames read whole from it
  uint64_t acked = 0;      // what our last Ack on it said
  bool dataRead = false;   // a Data frame was read whole since that Ack
  bool open() const { return socket.fd() >= 0; }
  bool ackDue() const { return readWhole > acked && (dataRead || readWhole - acked >= kAckEvery); }
};

// A send not yet complete.
struct Outgoing {
  Request* request;
  bool streaming = false;  // rendezvous: cleared to send its Data
  uint64_t framed = 0;     // payload bytes put into Data frames
  uint64_t delivered = 0;  // payload bytes whose frames are written whole (numbered: acknowledged)
};

// A message from a peer whose first frame has arrived.
struct Incoming {
  enum class State { Unexpected, Receiving, Discarding };
  State state = State::Unexpected;
  Tag tag = 0;
  bool rendezvous = false;
  bool cleared = false;  // rendezvous: Cts queued, so Data may come
  uint64_t total = 0;
  uint64_t ends = 0;               // no more arrives after this many bytes (less than total if cancelled)
  uint64_t arrived = 0;            // payload bytes of frames read whole
  uint64_t staged = 0;             // Unexpected eager: payload bytes in `staging` so far
  Request* receive = nullptr;      // Receiving
  std::vector<std::byte> staging;  // Unexpected eager: its payload
};
using IncomingMap = std::unordered_map<Seq, Incoming>;

// A numbered frame at or above Peer::wholeBelow that arrived.
struct FrameCopy {
  bool whole = false;  // one copy was read whole; otherwise one is being read
  FrameHeader header;  // the first copy's: every other must match it
};

struct Peer {
  int rank = -1;
  std::string name;  // "rank 3 (127.0.0.1:4000)"
  std::vector<Connection> connections;
  bool numbered = false;  // several connections: frames numbered, kept and failed over
  // Sending.
  Seq nextSeq = 1;
  FrameNumber nextNumber = 1;
  size_t orderedOn = 0;                       // the connection that carries `ordered`
  std::deque<OutFrame> ordered;               // eager and control frames, in order
  std::deque<OutFrame> resend;                // Data frames of a connection that went down
  std::vector<std::vector<std::byte>> spare;  // payload copies of delivered frames, for reuse
  std::deque<Seq> streaming;                  // sends with Data still to frame, round-robin
  std::unordered_map<Seq, Outgoing> sends;
  // Receiving.
  Seq lastOpened = 0;
  IncomingMap incoming;
  std::unordered_map<Tag, Seq> unexpected;   // Unexpected messages by tag
  std::unordered_map<Tag, Request*> posted;  // receives no message has arrived for
  // Numbers below `wholeBelow` were read whole; above it, `reading` says
  // whether a number was (true) or is being read (false).
  FrameNumber wholeBelow = 1;
  std::unordered_map<FrameNumber, FrameCopy> reading;
  std::string gone;  // why requests with this peer can no longer complete
};

// Connection i of every peer: one rail (railStatus). Counted by the
// progressing thread, read by any.
struct Rail {
  std::string name;  // the interface this rank's end of it is on
  OwnedCounter sent, received;
  std::atomic<int> downPeers{0};       // peers whose connection on it is down
  std::atomic<uint32_t> failovers{0};  // connections on it that went down
  Rail() = default;
  Rail(Rail&& other) noexcept : name(std::move(other.name)), sent(other.sent), received(other.received) {}
};

inline void complete(Request& request, uint64_t bytes) {
  request.transferred = bytes;
  request.done = true;
}

class TcpTransport final : public Transport {
 public:
  TcpTransport(const Options& options, const Config& config, std::vector<PeerConnections> connections);
  ~TcpTransport() override;

  const char* name() const override { return "tcp"; }
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

 private:
  Peer& peerOf(const Request& request, const char* operation);
  // Receiving.
  void readFrom(Peer& peer, Connection& connection);
  size_t readAhead(Peer& peer, Connection& connection);
  size_t receive(Peer& peer, Connection& connection, std::byte* into, size_t bytes);
  std::byte* destination(Peer& peer, const InStream& in);
  void payloadArrived(Peer& peer, Connection& connection, uint64_t bytes);
  void onHeader(Peer& peer, Connection& connection, const FrameHeader& frame);
  void onFrame(Peer& peer, const FrameHeader& frame);
  void frameRead(Peer& peer, Connection& connection);
  bool readWhole(const Peer& peer, FrameNumber number) const;
  void markWhole(Peer& peer, FrameNumber number);
  void open(Peer& peer, const FrameHeader& frame);
  void checkData(Peer& peer, const FrameHeader& frame);
  void onCancel(Peer& peer, Seq seq, uint64_t framed);
  void post(Peer& peer, Request& receive);
  void match(Peer& peer, IncomingMap::iterator message, Request& receive);
  void settle(Peer& peer, IncomingMap::iterator message);
  // Sending.
  void writeTo(Peer& peer, size_t index);
  bool nextFrame(Peer& peer, size_t index, std::optional<OutFrame>& out);
  void frameSent(Peer& peer, size_t index, OutFrame frame);
  void delivered(Peer& peer, Seq seq, uint64_t bytes);
  // Failover (tcp_failover.cc).
  void onAck(Peer& peer, size_t index, uint64_t count);
  void deliverUpTo(Peer& peer, Connection& connection, uint64_t count);
  void watch(Peer& peer);
  void failOver(Peer& peer, size_t index);
  void comeBack(Peer& peer, size_t index);
  void onReply(Peer& peer, const FrameHeader& frame);
  void queueControl(Peer& peer, FrameKind kind, Seq seq, uint64_t total);
  void cancelSends(Peer& peer);
  bool canWrite(const Peer& peer) const;
  // Failures.
  template <class Step>
  void guarded(Peer& peer, Step&& step, Connection* on = nullptr);
  [[noreturn]] void protocolError(const Peer& peer, const std::string& what) const;
  void fail(trncclResult_t code, const std::string& message);
  void disconnect(Peer& peer, const std::string& why);
  bool hasOutstanding(const Peer& peer) const;
  std::string describe(const Peer& peer, Tag tag) const;
  void rebuildPollSet();

  const int rank_;
  const uint64_t job_;
  const std::chrono::milliseconds railStall_;
  std::vector<Peer> peers_;
  std::vector<Peer*> peerOfRank_;  // null for ranks that are not peers
  std::vector<Rail> rails_;        // by connection index
  Wakeup wakeup_;
  // [0]: the wake-up; then every open connection, as in polled_[i - 1].
  std::vector<pollfd> pollSet_;
  std::vector<std::pair<Peer*, Connection*>> polled_;
  bool pollSetStale_ = true;
  std::exception_ptr pendingError_;  // the first failure, thrown by the next progress()
};

// Runs a step that talks to the peer; a peer whose connection fails or who
// breaks the protocol is disconnected, and requests with it fail. A
// connection `on` that fails while down (its traffic already moved) is
// closed alone.
template <class Step>
void TcpTransport::guarded(Peer& peer, Step&& step, Connection* on) {
  if (!peer.gone.empty()) return;
  try {
    step();
  } catch (const Error& e) {
    if (e.code() != trncclRemoteError && e.code() != trncclSystemError) throw;
    if (on != nullptr && on->down) {
      TRNCCL_WARN("tcp: rank %d: a stalled connection to %s ended: %s", rank_, peer.name.c_str(), e.what());
      on->socket = net::Socket();
      pollSetStale_ = true;
      return;
    }
    disconnect(peer, e.what());
  }
}

}  // namespace trnccl::transport::tcp
