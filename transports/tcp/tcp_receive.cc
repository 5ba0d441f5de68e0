// The TCP transport: reading frames, and matching messages with receives.
#include <algorithm>
#include <cstring>

#include "transports/tcp/tcp_transport_internal.h"

namespace trnccl::transport::tcp {

// Parses and delivers everything read ahead, and reads more while the kernel
// has some and the budget lasts: nothing is left parsed-but-unhandled for a
// poll() that would not report it.
void TcpTransport::readFrom(Peer& peer, Connection& connection) {
  InStream& in = connection.in;
  uint64_t budget = kReadBudgetBytes;
  auto readMore = [&] {
    if (budget == 0) return false;
    const size_t got = readAhead(peer, connection);
    budget -= std::min<uint64_t>(budget, got);
    return got > 0;
  };
  while (true) {
    if (!in.inPayload) {
      const FrameVerdict verdict = parseFrame({in.buffer.data() + in.begin, in.readAhead()}, job_);
      if (verdict.status == FrameVerdict::Status::Malformed)
        protocolError(peer, "it sent a malformed frame: " + verdict.problem);
      if (verdict.status == FrameVerdict::Status::NeedMore) {
        if (!readMore()) return;
        continue;
      }
      in.begin += sizeof(FrameHeader);
      onHeader(peer, connection, verdict.header);
      continue;
    }
    const uint64_t left = in.frame.length - in.payloadDone;
    std::byte* into = destination(peer, in);  // null: the bytes are dropped
    uint64_t moved = 0;
    if (in.readAhead() > 0) {
      moved = std::min<uint64_t>(left, in.readAhead());
      if (into != nullptr) std::memcpy(into, in.buffer.data() + in.begin, moved);
      in.begin += moved;
    } else if (into != nullptr && left >= kDirectReadBytes && budget > 0) {
      moved = receive(peer, connection, into, left);
      if (moved == 0) return;
      budget -= std::min(budget, moved);
    } else {
      if (!readMore()) return;
      continue;
    }
    payloadArrived(peer, connection, moved);
  }
}

// Reads what the kernel has into the read-ahead buffer; returns the bytes read.
size_t TcpTransport::readAhead(Peer& peer, Connection& connection) {
  InStream& in = connection.in;
  if (in.buffer.empty()) in.buffer.resize(kReadAheadBytes);
  if (in.begin > 0) {
    std::memmove(in.buffer.data(), in.buffer.data() + in.begin, in.readAhead());
    in.end -= in.begin;
    in.begin = 0;
  }
  const size_t got = receive(peer, connection, in.buffer.data() + in.end, in.buffer.size() - in.end);
  in.end += got;
  return got;
}

// Socket::recvSome, but a connection the peer closed between two frames only
// ends: the peer may still be writing the rest of a message on its others.
size_t TcpTransport::receive(Peer& peer, Connection& connection, std::byte* into, size_t bytes) {
  try {
    const size_t got = connection.socket.recvSome(into, bytes);
    rails_[static_cast<size_t>(&connection - peer.connections.data())].received.add(got);
    return got;
  } catch (const Error& e) {
    if (e.code() != trncclRemoteError || connection.socket.tlsFailed()) throw;
    const InStream& in = connection.in;
    if (in.inPayload || in.readAhead() > 0) throw Error(e.code(), std::string(e.what()) + " in the middle of a frame");
    connection.socket = net::Socket();
    pollSetStale_ = true;
    if (std::none_of(peer.connections.begin(), peer.connections.end(), [](const Connection& c) { return c.open(); }))
      throw;
    return 0;
  }
}

// Where the next payload byte of the frame being read goes; null to drop it
// (a copy of a frame that was read whole: its message may be complete and
// the buffer the caller's again).
std::byte* TcpTransport::destination(Peer& peer, const InStream& in) {
  if (in.frame.number != 0 && readWhole(peer, in.frame.number)) return nullptr;
  auto message = peer.incoming.find(in.frame.seq);
  if (message == peer.incoming.end()) return nullptr;
  Incoming& m = message->second;
  // In bounds: open() and checkData() held the frame to the message's size,
  // and match() the message to the receive's capacity.
  const uint64_t at = in.frame.offset + in.payloadDone;
  switch (m.state) {
    case Incoming::State::Receiving:
      return static_cast<std::byte*>(m.receive->buffer) + at;
    case Incoming::State::Unexpected:
      return m.staging.data() + at;  // eager only
    case Incoming::State::Discarding:
      return nullptr;
  }
  return nullptr;
}

void TcpTransport::payloadArrived(Peer& peer, Connection& connection, uint64_t bytes) {
  InStream& in = connection.in;
  in.payloadDone += bytes;
  if (auto message = peer.incoming.find(in.frame.seq);
      message != peer.incoming.end() && message->second.state == Incoming::State::Unexpected)
    message->second.staged = std::max(message->second.staged, in.payloadDone);  // eager: from offset 0
  if (in.payloadDone < in.frame.length) return;
  in.inPayload = false;
  frameRead(peer, connection);
}

// A frame header: the first copy of a frame acts on it (every frame of an
// unnumbered pair is a first copy); a copy of a frame being read on another
// connection brings the same payload; a copy of a frame read whole is dropped.
void TcpTransport::onHeader(Peer& peer, Connection& connection, const FrameHeader& frame) {
  if (frame.kind == FrameKind::Ack) {
    onAck(peer, static_cast<size_t>(&connection - peer.connections.data()), frame.seq);
    return;
  }
  bool first = true;
  if (frame.number != 0 && !readWhole(peer, frame.number)) {
    auto copy = peer.reading.find(frame.number);
    first = copy == peer.reading.end();
    if (!first && std::memcmp(&copy->second.header, &frame, sizeof frame) != 0)
      protocolError(peer, "it sent frame " + std::to_string(frame.number) + " again, different");
    if (first && frame.length > 0) peer.reading.emplace(frame.number, FrameCopy{false, frame});
  } else if (frame.number != 0) {
    first = false;
  }
  if (first) onFrame(peer, frame);
  InStream& in = connection.in;
  in.frame = frame;
  in.payloadDone = 0;
  in.inPayload = frame.length > 0;
  if (!in.inPayload) frameRead(peer, connection);
}

void TcpTransport::onFrame(Peer& peer, const FrameHeader& frame) {
  switch (frame.kind) {
    case FrameKind::Eager:
    case FrameKind::Rts:
      open(peer, frame);
      break;
    case FrameKind::Data:
      checkData(peer, frame);
      break;
    case FrameKind::Cts:
    case FrameKind::Nack:
      onReply(peer, frame);
      break;
    case FrameKind::Cancel:
      onCancel(peer, frame.seq, frame.total);
      break;
    case FrameKind::Ack:
      break;  // onHeader took it
  }
}

// A frame read whole: the first whole copy of a frame counts its payload
// into its message.
void TcpTransport::frameRead(Peer& peer, Connection& connection) {
  const FrameHeader& frame = connection.in.frame;
  if (frame.number != 0) {
    ++connection.readWhole;
    connection.dataRead = connection.dataRead || frame.kind == FrameKind::Data;
    if (readWhole(peer, frame.number)) return;
    markWhole(peer, frame.number);
  }
  if (frame.length == 0) return;
  auto message = peer.incoming.find(frame.seq);
  if (message == peer.incoming.end()) return;
  message->second.arrived += frame.length;
  settle(peer, message);
}

bool TcpTransport::readWhole(const Peer& peer, FrameNumber number) const {
  if (number < peer.wholeBelow) return true;
  auto copy = peer.reading.find(number);
  return copy != peer.reading.end() && copy->second.whole;
}

void TcpTransport::markWhole(Peer& peer, FrameNumber number) {
  peer.reading[number].whole = true;
  for (auto next = peer.reading.find(peer.wholeBelow); next != peer.reading.end() && next->second.whole;
       next = peer.reading.find(peer.wholeBelow)) {
    peer.reading.erase(next);
    ++peer.wholeBelow;
  }
}

// The first frame of a message: Eager (all of it) or Rts.
void TcpTransport::open(Peer& peer, const FrameHeader& frame) {
  if (frame.seq <= peer.lastOpened)
    protocolError(
        peer, "it opened message " + std::to_string(frame.seq) + " after message " + std::to_string(peer.lastOpened));
  peer.lastOpened = frame.seq;
  if (peer.unexpected.contains(frame.tag))
    protocolError(peer, "it sent a second message with tag " + std::to_string(frame.tag) +
                            " before the first was received (tags must be unique among the "
                            "messages in flight)");
  const bool rendezvous = frame.kind == FrameKind::Rts;
  Incoming fresh;
  fresh.tag = frame.tag;
  fresh.rendezvous = rendezvous;
  fresh.total = frame.total;
  fresh.ends = frame.total;
  auto message = peer.incoming.emplace(frame.seq, std::move(fresh)).first;
  if (auto posted = peer.posted.find(frame.tag); posted != peer.posted.end()) {
    Request& receive = *posted->second;
    peer.posted.erase(posted);
    match(peer, message, receive);
    return;
  }
  peer.unexpected.emplace(frame.tag, frame.seq);
  if (!rendezvous) message->second.staging.resize(frame.total);
}

void TcpTransport::checkData(Peer& peer, const FrameHeader& frame) {
  auto message = peer.incoming.find(frame.seq);
  if (message == peer.incoming.end() || !message->second.cleared)
    protocolError(peer, "it sent data of message " + std::to_string(frame.seq) + ", which it was not cleared to send");
  if (frame.total != message->second.total)
    protocolError(peer, "it sent data of a " + std::to_string(frame.total) + "-byte message " +
                            std::to_string(frame.seq) + " announced as " + std::to_string(message->second.total) +
                            " bytes");
}

void TcpTransport::onCancel(Peer& peer, Seq seq, uint64_t framed) {
  auto message = peer.incoming.find(seq);
  if (message == peer.incoming.end()) return;  // it arrived in full before the sender cancelled
  Incoming& m = message->second;
  if (m.state == Incoming::State::Unexpected) {
    peer.unexpected.erase(m.tag);
    peer.incoming.erase(message);
    return;
  }
  if (m.rendezvous) {
    if (framed > m.total || framed < m.arrived)
      protocolError(peer, "it cancelled message " + std::to_string(seq) + " after framing " + std::to_string(framed) +
                              " of its " + std::to_string(m.total) + " bytes, of which " + std::to_string(m.arrived) +
                              " had arrived");
    m.ends = framed;
  }
  Request* receive = m.receive;
  m.state = Incoming::State::Discarding;
  m.receive = nullptr;
  settle(peer, message);
  if (receive != nullptr) post(peer, *receive);  // it waits for the next message with its tag
}

void TcpTransport::post(Peer& peer, Request& receive) {
  auto waiting = peer.unexpected.find(receive.tag);
  if (waiting == peer.unexpected.end()) {
    peer.posted.emplace(receive.tag, &receive);
    return;
  }
  const Seq seq = waiting->second;
  peer.unexpected.erase(waiting);
  match(peer, peer.incoming.find(seq), receive);
}

void TcpTransport::match(Peer& peer, IncomingMap::iterator message, Request& receive) {
  Incoming& m = message->second;
  if (m.total > receive.bytes) {
    fail(trncclInvalidUsage, "the message from " + describe(peer, m.tag) + " is " + std::to_string(m.total) +
                                 " bytes, larger than the " + std::to_string(receive.bytes) + "-byte receive rank " +
                                 std::to_string(rank_) + " posted for it");
    if (m.rendezvous) {
      queueControl(peer, FrameKind::Nack, message->first, receive.bytes);
      peer.incoming.erase(message);
    } else {
      m.state = Incoming::State::Discarding;
      m.staging = {};
      settle(peer, message);
    }
    return;
  }
  m.state = Incoming::State::Receiving;
  m.receive = &receive;
  if (m.rendezvous) {
    m.cleared = true;
    queueControl(peer, FrameKind::Cts, message->first, 0);
    return;
  }
  if (m.staged > 0) std::memcpy(receive.buffer, m.staging.data(), m.staged);
  m.staging = {};
  settle(peer, message);
}

// Completes or forgets a message once nothing more of it is to come.
void TcpTransport::settle(Peer& peer, IncomingMap::iterator message) {
  Incoming& m = message->second;
  if (m.state == Incoming::State::Receiving && m.arrived >= m.total) {
    complete(*m.receive, m.total);
    peer.incoming.erase(message);
  } else if (m.state == Incoming::State::Discarding && m.arrived >= m.ends) {
    peer.incoming.erase(message);
  }
}

bool TcpTransport::arrived(int rank, Tag tag) const {
  if (rank < 0 || static_cast<size_t>(rank) >= peerOfRank_.size() || peerOfRank_[static_cast<size_t>(rank)] == nullptr)
    return false;
  const Peer& peer = *peerOfRank_[static_cast<size_t>(rank)];
  return peer.unexpected.contains(tag);
}

}  // namespace trnccl::transport::tcp
