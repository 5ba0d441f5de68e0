// The TCP transport: choosing and writing frames, replies to sends, and
// cancelling sends.
#include <sys/uio.h>

#include <algorithm>
#include <unordered_set>

#include "transports/tcp/tcp_transport_internal.h"

namespace trnccl::transport::tcp {

void TcpTransport::writeTo(Peer& peer, size_t index) {
  Connection& connection = peer.connections[index];
  if (!connection.open()) return;
  constexpr size_t kHeader = sizeof(FrameHeader);
  while (connection.out || nextFrame(peer, index, connection.out)) {
    OutFrame& frame = *connection.out;
    iovec parts[2];
    size_t count = 0;
    if (frame.sent < kHeader)
      parts[count++] = {reinterpret_cast<char*>(&frame.header) + frame.sent, kHeader - frame.sent};
    const uint64_t from = frame.sent > kHeader ? frame.sent - kHeader : 0;
    if (from < frame.header.length)
      parts[count++] = {const_cast<std::byte*>(frame.payload + from), frame.header.length - from};
    const size_t written = connection.socket.sendSomeParts(std::span<iovec>(parts, count));
    rails_[index].sent.add(written);
    frame.sent += written;
    if (frame.sent < frame.size()) return;  // the kernel took what it could
    OutFrame whole = std::move(frame);
    connection.out.reset();
    frameSent(peer, index, std::move(whole));
  }
}

// The next frame for the peer's connection `index`: an acknowledgement of
// what arrived on it; frames that must stay in order on their connection,
// ahead of data; data chunks anywhere, those of a stalled connection first.
// Numbered pairs number each frame as it begins to be written.
bool TcpTransport::nextFrame(Peer& peer, size_t index, std::optional<OutFrame>& out) {
  Connection& connection = peer.connections[index];
  if (connection.ackDue()) {
    out.emplace();
    out->header = makeFrame(FrameKind::Ack, job_, connection.readWhole);
    connection.acked = connection.readWhole;
    connection.dataRead = false;
    return true;
  }
  if (connection.down) return false;
  if (index == peer.orderedOn && !peer.ordered.empty()) {
    out = std::move(peer.ordered.front());
    peer.ordered.pop_front();
  } else if (!peer.resend.empty()) {
    out = std::move(peer.resend.front());
    peer.resend.pop_front();
  } else if (!peer.streaming.empty()) {
    const Seq seq = peer.streaming.front();
    peer.streaming.pop_front();
    Outgoing& send = peer.sends.at(seq);
    const Request& request = *send.request;
    out.emplace();
    out->header = makeFrame(FrameKind::Data, job_, seq);
    out->header.tag = request.tag;
    out->header.total = request.bytes;
    out->header.offset = send.framed;
    out->header.length = std::min(kChunkBytes, request.bytes - send.framed);
    out->payload = static_cast<const std::byte*>(request.buffer) + send.framed;
    send.framed += out->header.length;
    if (send.framed < request.bytes) peer.streaming.push_back(seq);  // round-robin
  } else {
    return false;
  }
  if (peer.numbered) {
    if (out->header.number == 0) out->header.number = peer.nextNumber++;  // a frame sent again keeps its own
    ++connection.begun;
    connection.outSince = Clock::now();
  }
  return true;
}

void TcpTransport::frameSent(Peer& peer, size_t index, OutFrame frame) {
  const FrameHeader& header = frame.header;
  if (header.kind == FrameKind::Ack || frame.orphan) return;
  if (!peer.numbered) {
    if (header.kind == FrameKind::Eager || header.kind == FrameKind::Data) delivered(peer, header.seq, header.length);
    return;
  }
  Connection& connection = peer.connections[index];
  // An Eager send completes now, its payload kept for sending again; a
  // Data frame's send waits for the acknowledgement.
  if (header.kind == FrameKind::Eager) {
    std::vector<std::byte> buffer;
    if (!peer.spare.empty()) {
      buffer = std::move(peer.spare.back());
      peer.spare.pop_back();
    }
    keepPayload(frame, std::move(buffer));
    delivered(peer, header.seq, header.length);
  }
  connection.unacked.push_back({std::move(frame), connection.begun, connection.outSince});
}

// Counts payload bytes of a send as delivered, completing it once all are.
void TcpTransport::delivered(Peer& peer, Seq seq, uint64_t bytes) {
  auto send = peer.sends.find(seq);
  if (send == peer.sends.end()) return;  // cancelled
  send->second.delivered += bytes;
  Request& request = *send->second.request;
  if (send->second.delivered < request.bytes) return;
  complete(request, request.bytes);
  peer.sends.erase(send);
}

// A receiver's answer to an Rts: Cts (stream it) or Nack (its receive is too small).
void TcpTransport::onReply(Peer& peer, const FrameHeader& frame) {
  const char* kind = frameKindName(frame.kind);
  if (frame.seq >= peer.nextSeq)
    protocolError(
        peer, std::string("it sent ") + kind + " for message " + std::to_string(frame.seq) + ", which was never sent");
  auto send = peer.sends.find(frame.seq);
  if (send == peer.sends.end()) return;  // cancelled
  Outgoing& s = send->second;
  if (s.request->bytes <= kEagerBytes || s.streaming)
    protocolError(
        peer, std::string("it sent ") + kind + " for message " + std::to_string(frame.seq) + ", which expects none");
  if (frame.kind == FrameKind::Cts) {
    s.streaming = true;
    peer.streaming.push_back(frame.seq);
    return;
  }
  fail(trncclInvalidUsage, "rank " + std::to_string(rank_) + " sent a " + std::to_string(s.request->bytes) +
                               "-byte message to " + describe(peer, s.request->tag) +
                               ", but the receive posted for it holds only " + std::to_string(frame.total) + " bytes");
  peer.sends.erase(send);
}

void TcpTransport::queueControl(Peer& peer, FrameKind kind, Seq seq, uint64_t total) {
  OutFrame frame;
  frame.header = makeFrame(kind, job_, seq);
  frame.header.total = total;
  peer.ordered.push_back(std::move(frame));
}

void TcpTransport::cancelSends(Peer& peer) {
  // Sends whose first frame is still queued never reached the peer.
  std::unordered_set<Seq> unseen;
  std::erase_if(peer.ordered, [&unseen](const OutFrame& frame) {
    // A numbered frame waiting here was written before, on a connection that stalled.
    const bool opening =
        frame.header.number == 0 && (frame.header.kind == FrameKind::Eager || frame.header.kind == FrameKind::Rts);
    if (opening) unseen.insert(frame.header.seq);
    return opening;
  });
  if (peer.gone.empty()) {
    for (const auto& [seq, send] : peer.sends)
      if (!unseen.contains(seq)) queueControl(peer, FrameKind::Cancel, seq, send.framed);
  }
  peer.sends.clear();
  peer.streaming.clear();
  // The caller may reuse the buffer now: a frame part-way out must still end
  // where its header says, and one kept for failover may be written again.
  for (Connection& connection : peer.connections) {
    if (connection.out) keepPayload(*connection.out);
    for (Unacked& kept : connection.unacked) keepPayload(kept.frame);
  }
  for (OutFrame& frame : peer.resend) keepPayload(frame);
}

void keepPayload(OutFrame& frame, std::vector<std::byte> buffer) {
  if (frame.header.length == 0 || (!frame.kept.empty() && frame.payload == frame.kept.data())) return;
  buffer.assign(frame.payload, frame.payload + frame.header.length);
  frame.kept = std::move(buffer);
  frame.payload = frame.kept.data();
}

// Whether a connection with nothing on its way out has a frame to take.
bool TcpTransport::canWrite(const Peer& peer) const {
  auto idle = [](const Connection& connection) { return connection.open() && !connection.out; };
  auto usable = [&idle](const Connection& connection) { return idle(connection) && !connection.down; };
  for (const Connection& connection : peer.connections)
    if (idle(connection) && connection.ackDue()) return true;
  if (!peer.ordered.empty() && usable(peer.connections[peer.orderedOn])) return true;
  return (!peer.streaming.empty() || !peer.resend.empty()) &&
         std::any_of(peer.connections.begin(), peer.connections.end(), usable);
}

}  // namespace trnccl::transport::tcp
