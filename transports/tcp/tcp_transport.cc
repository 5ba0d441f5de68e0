// The TCP transport: requests, progress and waiting, cancelling, failures.
#include "transports/tcp/tcp_transport.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <utility>

#include "base/log.h"
#include "transports/registration.h"
#include "transports/tcp/tcp_transport_internal.h"

namespace trnccl::transport::tcp {

TcpTransport::TcpTransport(const Options& options, const Config& config, std::vector<PeerConnections> connections)
    : rank_(options.rank),
      job_(jobIdOf(options.jobKey)),
      railStall_(config.railStallMs),
      peers_(connections.size()),
      peerOfRank_(static_cast<size_t>(options.nranks), nullptr) {
  for (size_t i = 0; i < connections.size(); ++i) {
    Peer& peer = peers_[i];
    peer.rank = connections[i].rank;
    peer.name = connections[i].sockets.front().describePeer();
    for (net::Socket& socket : connections[i].sockets) peer.connections.emplace_back().socket = std::move(socket);
    peer.numbered = peer.connections.size() > 1;
    peerOfRank_[static_cast<size_t>(peer.rank)] = &peer;
  }
  size_t connectionCount = 0;
  for (const Peer& peer : peers_) {
    connectionCount += peer.connections.size();
    for (size_t i = rails_.size(); i < peer.connections.size(); ++i)
      rails_.emplace_back().name = net::interfaceHolding(peer.connections[i].socket.localAddress());
  }
  TRNCCL_INFO("tcp: rank %d connected to %zu peers over %zu connections", rank_, peers_.size(), connectionCount);
}

std::string TcpTransport::description() const {
  if (peers_.empty()) return "tcp";
  const size_t sockets = peers_.front().connections.size();
  return "tcp (" + std::to_string(sockets) + (sockets == 1 ? " socket" : " sockets") + " per peer)";
}

// Closing a socket with unread bytes resets the connection, and a reset drops
// what this rank's kernel has not yet sent: a message whose send completed
// would be lost. So read what has arrived first.
TcpTransport::~TcpTransport() {
  std::byte sink[4096];
  for (Peer& peer : peers_) {
    for (Connection& connection : peer.connections) {
      while (connection.open() && ::recv(connection.socket.fd(), sink, sizeof sink, 0) > 0) {
      }
    }
  }
}

Peer& TcpTransport::peerOf(const Request& request, const char* operation) {
  if (request.peer < 0 || static_cast<size_t>(request.peer) >= peerOfRank_.size() ||
      peerOfRank_[static_cast<size_t>(request.peer)] == nullptr)
    throwInvalidArgument("request.peer", "is " + std::to_string(request.peer) + ", not a tcp peer of rank " +
                                             std::to_string(rank_) + " (" + operation + ")");
  if (request.buffer == nullptr && request.bytes > 0)
    throwInvalidArgument("request.buffer", std::string("is NULL for a non-empty ") + operation);
  if (request.bytes > kMaxMessageBytes)
    throwInvalidArgument("request.bytes", "is " + std::to_string(request.bytes) +
                                              ", more than the tcp transport's limit of " +
                                              std::to_string(kMaxMessageBytes));
  return *peerOfRank_[static_cast<size_t>(request.peer)];
}

void TcpTransport::isend(Request& request) {
  Peer& peer = peerOf(request, "send");
  request.done = false;
  request.transferred = 0;
  const Seq seq = peer.nextSeq++;
  peer.sends.emplace(seq, Outgoing{&request});
  const bool eager = request.bytes <= kEagerBytes;
  OutFrame frame;
  frame.header = makeFrame(eager ? FrameKind::Eager : FrameKind::Rts, job_, seq);
  frame.header.tag = request.tag;
  frame.header.total = request.bytes;
  if (eager) {
    frame.header.length = request.bytes;
    frame.payload = static_cast<const std::byte*>(request.buffer);
  }
  peer.ordered.push_back(std::move(frame));
}

void TcpTransport::irecv(Request& request) {
  Peer& peer = peerOf(request, "receive");
  request.done = false;
  request.transferred = 0;
  if (peer.posted.contains(request.tag))
    throwError(trncclInvalidUsage, "rank " + std::to_string(rank_) + " posted a second receive from " +
                                       describe(peer, request.tag) +
                                       " while the first is pending: tags must be unique "
                                       "among the messages in flight between two ranks");
  post(peer, request);
}

void TcpTransport::progress() {
  if (pollSetStale_) rebuildPollSet();
  if (pollSet_.size() > 1) {
    for (pollfd& entry : pollSet_) entry.events = POLLIN;
    if (::poll(pollSet_.data() + 1, pollSet_.size() - 1, 0) < 0) {
      if (errno != EINTR) throwSystemError("poll", errno);
      for (pollfd& entry : pollSet_) entry.revents = 0;  // a signal: read next time
    }
    for (size_t i = 1; i < pollSet_.size(); ++i) {
      auto [peer, connection] = polled_[i - 1];
      // TLS may hold decrypted bytes the kernel no longer reports.
      if (pollSet_[i].revents == 0 && !connection->socket.hasBuffered()) continue;
      guarded(
          *peer, [&] { readFrom(*peer, *connection); }, connection);
    }
  }
  for (Peer& peer : peers_) {
    for (size_t i = 0; i < peer.connections.size(); ++i)
      guarded(
          peer, [&] { writeTo(peer, i); }, &peer.connections[i]);
    if (peer.numbered) guarded(peer, [&] { watch(peer); });
  }
  if (pendingError_) std::rethrow_exception(std::exchange(pendingError_, nullptr));
  for (const Peer& peer : peers_) {
    if (!peer.gone.empty() && hasOutstanding(peer)) throwError(trncclRemoteError, peer.gone);
  }
}

void TcpTransport::wait(std::chrono::microseconds maxWait) {
  if (pendingError_) return;
  for (const Peer& peer : peers_) {
    // progress() has something to do (or to throw) at once.
    if (peer.gone.empty() ? canWrite(peer) : hasOutstanding(peer)) return;
  }
  if (pollSetStale_) rebuildPollSet();
  for (const auto& [peer, connection] : polled_)
    if (connection->socket.hasBuffered()) return;
  for (size_t i = 1; i < pollSet_.size(); ++i)
    pollSet_[i].events = static_cast<short>(POLLIN | (polled_[i - 1].second->out ? POLLOUT : 0));
  const auto us = std::max<int64_t>(maxWait.count(), 0);
  const timespec timeout{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000};
  if (::ppoll(pollSet_.data(), pollSet_.size(), &timeout, nullptr) < 0 && errno != EINTR)
    throwSystemError("poll", errno);
  if (pollSet_[0].revents != 0) wakeup_.clear();
}

void TcpTransport::interrupt() { wakeup_.wake(); }

void TcpTransport::cancelAll() {
  for (Peer& peer : peers_) {
    cancelSends(peer);
    peer.posted.clear();
    // Their data still comes (the sender does not know): it is read and dropped.
    for (auto& [seq, message] : peer.incoming) {
      if (message.state != Incoming::State::Receiving) continue;
      message.state = Incoming::State::Discarding;
      message.receive = nullptr;
    }
  }
  pendingError_ = nullptr;
}

// ---- Failures ---------------------------------------------------------------

void TcpTransport::protocolError(const Peer& peer, const std::string& what) const {
  throwError(trncclRemoteError, peer.name + " broke the tcp protocol with rank " + std::to_string(rank_) + ": " + what);
}

void TcpTransport::fail(trncclResult_t code, const std::string& message) {
  if (!pendingError_) pendingError_ = std::make_exception_ptr(Error(code, message));
}

void TcpTransport::disconnect(Peer& peer, const std::string& why) {
  peer.gone = why;
  for (Connection& connection : peer.connections) connection.socket = net::Socket();
  pollSetStale_ = true;
  if (hasOutstanding(peer))
    TRNCCL_WARN("tcp: rank %d: %s", rank_, why.c_str());
  else
    TRNCCL_INFO("tcp: rank %d: %s", rank_, why.c_str());
}

std::vector<std::string> TcpTransport::departures() {
  std::vector<std::string> gone;
  for (const Peer& peer : peers_)
    if (!peer.gone.empty()) gone.push_back(peer.gone);
  return gone;
}

MemoryUse TcpTransport::memoryUse() const {
  MemoryUse use;
  for (const Peer& peer : peers_) {
    uint64_t bytes = 0;
    for (const Connection& c : peer.connections) {
      bytes += c.in.buffer.capacity() + (c.out ? c.out->kept.capacity() : 0);
      for (const Unacked& kept : c.unacked) bytes += kept.frame.kept.capacity();
    }
    for (const OutFrame& frame : peer.ordered) bytes += frame.kept.capacity();
    for (const OutFrame& frame : peer.resend) bytes += frame.kept.capacity();
    for (const auto& buffer : peer.spare) bytes += buffer.capacity();
    for (const auto& [seq, message] : peer.incoming) bytes += message.staging.capacity();
    use.hostBytes += bytes;
    use.peersWithBuffers += bytes > 0 ? 1 : 0;  // sockets are connected to every peer; buffers come with traffic
  }
  return use;
}

std::vector<RailStatus> TcpTransport::railStatus() const {
  std::vector<RailStatus> status;
  for (const Rail& rail : rails_) {
    RailStatus& r = status.emplace_back();
    r.name = rail.name;
    r.bytesSent = rail.sent.get();
    r.bytesReceived = rail.received.get();
    r.up = rail.downPeers.load(std::memory_order_relaxed) == 0;
    r.failovers = rail.failovers.load(std::memory_order_relaxed);
  }
  return status;
}

bool TcpTransport::hasOutstanding(const Peer& peer) const {
  return !peer.sends.empty() || !peer.posted.empty() ||
         std::any_of(peer.incoming.begin(), peer.incoming.end(),
                     [](const auto& entry) { return entry.second.state == Incoming::State::Receiving; });
}

std::string TcpTransport::describe(const Peer& peer, Tag tag) const {
  return "rank " + std::to_string(peer.rank) + " (tag " + std::to_string(tag) + ")";
}

void TcpTransport::rebuildPollSet() {
  pollSet_.assign(1, {wakeup_.fd(), POLLIN, 0});
  polled_.clear();
  for (Peer& peer : peers_) {
    if (!peer.gone.empty()) continue;
    for (Connection& connection : peer.connections) {
      if (!connection.open()) continue;
      pollSet_.push_back({connection.socket.fd(), POLLIN, 0});
      polled_.emplace_back(&peer, &connection);
    }
  }
  pollSetStale_ = false;
}

}  // namespace trnccl::transport::tcp

namespace trnccl::transport {

std::unique_ptr<Transport> createTcpTransport(const Options& options) {
  const tcp::Config config = tcp::readConfig();
  return std::make_unique<tcp::TcpTransport>(options, config, tcp::connectPeers(options, config));
}

// Between instances, the fallback when libfabric is not there.
TRNCCL_REGISTER_TRANSPORT(tcp, {"tcp",
                                createTcpTransport,
                                Reach::Network,
                                1,
                                {.pathSetting = nullptr, .paths = {}, .rails = false, .registration = false}})

}  // namespace trnccl::transport
