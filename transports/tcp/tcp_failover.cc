// The TCP transport's rail failover (tcp_transport_internal.h says how it
// works): acknowledgements, finding a stalled connection, moving its frames
// to the others, and taking it back once the peer hears it again.
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>

#include "transports/tcp/tcp_transport_internal.h"

namespace trnccl::transport::tcp {

namespace {

bool usable(const Connection& connection) { return connection.open() && !connection.down; }

// A copy of a frame to write again from its start, on another connection.
OutFrame copyToSendAgain(const OutFrame& frame) {
  OutFrame copy;
  copy.header = frame.header;
  copy.kept = frame.kept;
  copy.payload = copy.kept.empty() ? frame.payload : copy.kept.data();
  return copy;
}

}  // namespace

void TcpTransport::onAck(Peer& peer, size_t index, uint64_t count) {
  Connection& connection = peer.connections[index];
  if (!peer.numbered || count > connection.begun)
    protocolError(peer, "it acknowledged " + std::to_string(count) + " frames on connection " + std::to_string(index) +
                            ", on which " + std::to_string(connection.begun) + " began");
  deliverUpTo(peer, connection, count);
}

// The connection's kept frames among the first `count` begun on it are
// delivered: a Data frame counts towards completing its send.
void TcpTransport::deliverUpTo(Peer& peer, Connection& connection, uint64_t count) {
  while (!connection.unacked.empty() && connection.unacked.front().count <= count) {
    OutFrame& frame = connection.unacked.front().frame;
    if (frame.header.kind == FrameKind::Data) delivered(peer, frame.header.seq, frame.header.length);
    if (frame.kept.capacity() > 0 && peer.spare.size() < kSpareCopies) peer.spare.push_back(std::move(frame.kept));
    connection.unacked.pop_front();
  }
}

// Asks the kernel of each connection with frames kept (or down), at most
// every railStall_ / 4: with nothing left to send or unacknowledged, every
// frame written is in the peer's kernel (delivered; a connection that was
// down is back); holding data with no TCP acknowledgement for railStall_,
// its oldest kept frame as old, it has stalled, and its traffic moves to the
// pair's other connections while one is up (the last keeps its traffic: the
// call's timeout says when to give up).
void TcpTransport::watch(Peer& peer) {
  const auto now = Clock::now();
  for (size_t i = 0; i < peer.connections.size(); ++i) {
    Connection& connection = peer.connections[i];
    const bool outNumbered = connection.out && connection.out->header.number != 0;
    if (!connection.open() || (connection.unacked.empty() && !outNumbered && !connection.down) ||
        now - connection.checkedAt < railStall_ / 4)
      continue;
    connection.checkedAt = now;
    const int fd = connection.socket.fd();
    int queued = 0;
    tcp_info info{};
    socklen_t length = sizeof info;
    if (::ioctl(fd, SIOCOUTQ, &queued) != 0 || ::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) continue;
    if (queued == 0) {
      deliverUpTo(peer, connection, connection.begun);
      if (connection.down && !connection.out) comeBack(peer, i);
      continue;
    }
    const auto oldest = connection.unacked.empty() ? connection.outSince : connection.unacked.front().at;
    const bool stalled = !connection.down && now - oldest >= railStall_ &&
                         info.tcpi_last_ack_recv >= static_cast<uint32_t>(railStall_.count());
    if (stalled && std::count_if(peer.connections.begin(), peer.connections.end(), usable) > 1) failOver(peer, i);
  }
}

void TcpTransport::comeBack(Peer& peer, size_t index) {
  peer.connections[index].down = false;
  Rail& rail = rails_[index];
  rail.downPeers.store(rail.downPeers.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  TRNCCL_INFO("tcp: rank %d: connection %zu (%s) to %s delivers again; it carries traffic again", rank_, index,
              rail.name.c_str(), peer.name.c_str());
}

// Marks the connection down and writes its kept frames again on the others:
// those that must stay in order ahead of every later one, on the first
// connection up (which carries them from now on), Data on any.
void TcpTransport::failOver(Peer& peer, size_t index) {
  Connection& connection = peer.connections[index];
  connection.down = true;
  std::vector<OutFrame> again;
  for (Unacked& kept : connection.unacked) again.push_back(std::move(kept.frame));
  connection.unacked.clear();
  if (connection.out && connection.out->header.number != 0 && !connection.out->orphan) {
    again.push_back(copyToSendAgain(*connection.out));
    // The copy's acknowledgement may complete the send: finish this one from a copy.
    keepPayload(*connection.out);
    connection.out->orphan = true;
  }
  std::deque<OutFrame> ordered;
  for (OutFrame& frame : again) {
    frame.sent = 0;
    (frame.header.kind == FrameKind::Data ? peer.resend : ordered).push_back(std::move(frame));
  }
  peer.ordered.insert(peer.ordered.begin(), std::make_move_iterator(ordered.begin()),
                      std::make_move_iterator(ordered.end()));
  if (peer.orderedOn == index)
    peer.orderedOn = static_cast<size_t>(std::find_if(peer.connections.begin(), peer.connections.end(), usable) -
                                         peer.connections.begin());
  Rail& rail = rails_[index];
  rail.downPeers.store(rail.downPeers.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  rail.failovers.store(rail.failovers.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  TRNCCL_WARN(
      "tcp: rank %d: connection %zu (%s) to %s stalled (nothing acknowledged for %lld ms); its %zu unacknowledged "
      "frames and later traffic move to the other connections",
      rank_, index, rail.name.c_str(), peer.name.c_str(), static_cast<long long>(railStall_.count()), again.size());
}

}  // namespace trnccl::transport::tcp
