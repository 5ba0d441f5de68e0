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

#include <deque>
#include <exception>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "base/socket.h"
#include "base/wakeup.h"
#include "transports/tcp/frame.h"
#include "transports/tcp/handshake.h"
#include "transports/transport.h"

namespace trnccl::transport::tcp {

using Seq = uint64_t;

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
  // Where payload byte `payloadBase` is: the caller's buffer, or `kept`.
  const std::byte* payload = nullptr;
  uint64_t payloadBase = 0;
  std::vector<std::byte> kept;  // a cancelled send's payload not yet written
  size_t sent = 0;              // bytes of header and payload written
  size_t size() const { return sizeof(FrameHeader) + header.length; }
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
  bool open() const { return socket.fd() >= 0; }
};

// A send not yet complete.
struct Outgoing {
  Request* request;
  bool streaming = false;  // rendezvous: cleared to send its Data
  uint64_t framed = 0;     // payload bytes put into Data frames
  uint64_t written = 0;    // payload bytes whose frames are fully written
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
  uint64_t arrived = 0;            // payload bytes read
  Request* receive = nullptr;      // Receiving
  std::vector<std::byte> staging;  // Unexpected eager: its payload
};
using IncomingMap = std::unordered_map<Seq, Incoming>;

struct Peer {
  int rank = -1;
  std::string name;  // "rank 3 (127.0.0.1:4000)"
  std::vector<Connection> connections;
  // Sending.
  Seq nextSeq = 1;
  std::deque<OutFrame> ordered;  // eager and control frames, for connection 0, in order
  std::deque<Seq> streaming;     // sends with Data still to frame, round-robin
  std::unordered_map<Seq, Outgoing> sends;
  // Receiving.
  Seq lastOpened = 0;
  IncomingMap incoming;
  std::unordered_map<Tag, Seq> unexpected;   // Unexpected messages by tag
  std::unordered_map<Tag, Request*> posted;  // receives no message has arrived for
  std::string gone;                          // why requests with this peer can no longer complete
};

inline void complete(Request& request, uint64_t bytes) {
  request.transferred = bytes;
  request.done = true;
}

class TcpTransport final : public Transport {
 public:
  TcpTransport(const Options& options, std::vector<PeerConnections> connections);
  ~TcpTransport() override;

  const char* name() const override { return "tcp"; }
  std::string description() const override;
  std::vector<std::string> departures() override;
  MemoryUse memoryUse() const override;
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
  void payloadArrived(Peer& peer, InStream& in, uint64_t bytes);
  void onFrame(Peer& peer, InStream& in, const FrameHeader& frame);
  void open(Peer& peer, const FrameHeader& frame);
  void checkData(Peer& peer, const FrameHeader& frame);
  void onCancel(Peer& peer, Seq seq, uint64_t framed);
  void post(Peer& peer, Request& receive);
  void match(Peer& peer, IncomingMap::iterator message, Request& receive);
  void settle(Peer& peer, IncomingMap::iterator message);
  // Sending.
  void writeTo(Peer& peer, size_t index);
  bool nextFrame(Peer& peer, size_t index, std::optional<OutFrame>& out);
  void frameSent(Peer& peer, const FrameHeader& frame);
  void onReply(Peer& peer, const FrameHeader& frame);
  void queueControl(Peer& peer, FrameKind kind, Seq seq, uint64_t total);
  void cancelSends(Peer& peer);
  bool canWrite(const Peer& peer) const;
  // Failures.
  template <class Step>
  void guarded(Peer& peer, Step&& step);
  [[noreturn]] void protocolError(const Peer& peer, const std::string& what) const;
  void fail(trncclResult_t code, const std::string& message);
  void disconnect(Peer& peer, const std::string& why);
  bool hasOutstanding(const Peer& peer) const;
  std::string describe(const Peer& peer, Tag tag) const;
  void rebuildPollSet();

  const int rank_;
  const uint64_t job_;
  std::vector<Peer> peers_;
  std::vector<Peer*> peerOfRank_;  // null for ranks that are not peers
  Wakeup wakeup_;
  // [0]: the wake-up; then every open connection, as in polled_[i - 1].
  std::vector<pollfd> pollSet_;
  std::vector<std::pair<Peer*, Connection*>> polled_;
  bool pollSetStale_ = true;
  std::exception_ptr pendingError_;  // the first failure, thrown by the next progress()
};

// Runs a step that talks to the peer; a peer whose connection fails or who
// breaks the protocol is disconnected, and requests with it fail.
template <class Step>
void TcpTransport::guarded(Peer& peer, Step&& step) {
  if (!peer.gone.empty()) return;
  try {
    step();
  } catch (const Error& e) {
    if (e.code() != trncclRemoteError && e.code() != trncclSystemError) throw;
    disconnect(peer, e.what());
  }
}

}  // namespace trnccl::transport::tcp
