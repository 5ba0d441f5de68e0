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
      parts[count++] = {const_cast<std::byte*>(frame.payload + (from - frame.payloadBase)), frame.header.length - from};
    frame.sent += connection.socket.sendSomeParts(std::span<iovec>(parts, count));
    if (frame.sent < frame.size()) return;  // the kernel took what it could
    const FrameHeader sent = frame.header;
    connection.out.reset();
    frameSent(peer, sent);
  }
}

// The next frame for the peer's connection `index`: frames that must stay in
// order go on the first connection, ahead of data; data chunks go anywhere.
bool TcpTransport::nextFrame(Peer& peer, size_t index, std::optional<OutFrame>& out) {
  if (index == 0 && !peer.ordered.empty()) {
    out = std::move(peer.ordered.front());
    peer.ordered.pop_front();
    return true;
  }
  if (peer.streaming.empty()) return false;
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
  return true;
}

void TcpTransport::frameSent(Peer& peer, const FrameHeader& frame) {
  if (frame.kind != FrameKind::Eager && frame.kind != FrameKind::Data) return;
  auto send = peer.sends.find(frame.seq);
  if (send == peer.sends.end()) return;  // cancelled
  send->second.written += frame.length;
  Request& request = *send->second.request;
  if (send->second.written < request.bytes) return;
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
    const bool opening = frame.header.kind == FrameKind::Eager || frame.header.kind == FrameKind::Rts;
    if (opening) unseen.insert(frame.header.seq);
    return opening;
  });
  if (peer.gone.empty()) {
    for (const auto& [seq, send] : peer.sends)
      if (!unseen.contains(seq)) queueControl(peer, FrameKind::Cancel, seq, send.framed);
  }
  peer.sends.clear();
  peer.streaming.clear();
  // A frame part-way out must still end where its header says: keep a copy
  // of the rest of its payload, for the caller may reuse the buffer now.
  for (Connection& connection : peer.connections) {
    if (!connection.out || !connection.out->kept.empty()) continue;
    OutFrame& frame = *connection.out;
    const uint64_t from = std::max<uint64_t>(frame.sent, sizeof(FrameHeader)) - sizeof(FrameHeader);
    if (from == frame.header.length) continue;  // no payload left
    frame.kept.assign(frame.payload + (from - frame.payloadBase),
                      frame.payload + (frame.header.length - frame.payloadBase));
    frame.payload = frame.kept.data();
    frame.payloadBase = from;
  }
}

// Whether a connection with nothing on its way out has a frame to take.
bool TcpTransport::canWrite(const Peer& peer) const {
  auto idle = [](const Connection& connection) { return connection.open() && !connection.out; };
  if (!peer.ordered.empty() && idle(peer.connections.front())) return true;
  return !peer.streaming.empty() && std::any_of(peer.connections.begin(), peer.connections.end(), idle);
}

}  // namespace trnccl::transport::tcp
