#include "transports/tcp/handshake.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <optional>
#include <string>

#include "base/encryption.h"
#include "base/error.h"
#include "base/greeting_limit.h"
#include "base/log.h"
#include "transports/tcp/frame.h"

namespace trnccl::transport::tcp {

namespace {

std::string rankName(int rank) { return "rank " + std::to_string(rank); }

void checkOptions(const Options& options) {
  if (options.oob == nullptr) throwInvalidArgument("options.oob", "is NULL");
  if (options.rank < 0 || options.rank >= options.nranks)
    throwInvalidArgument("options.rank",
                         "is " + std::to_string(options.rank) + ", not a rank of " + std::to_string(options.nranks));
  std::vector<int> sorted = options.peers;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    const int peer = sorted[i];
    if (peer < 0 || peer >= options.nranks || peer == options.rank || (i > 0 && sorted[i - 1] == peer))
      throwInvalidArgument("options.peers", "holds " + std::to_string(peer) + ", not a distinct other rank of " +
                                                std::to_string(options.nranks));
  }
}

// Reads a fixed-size greeting without blocking; true once all of it is there.
template <class T>
bool readSome(net::Socket& socket, T& into, size_t& received) {
  auto* bytes = reinterpret_cast<std::byte*>(&into);
  while (received < sizeof(T)) {
    const size_t got = socket.recvSome(bytes + received, sizeof(T) - received);
    if (got == 0) return false;
    received += got;
  }
  return true;
}

using Clock = std::chrono::steady_clock;

// An accepted connection whose hello has not fully arrived; dropped at
// `dropAt` (net::greetingLimit() after it came) so that a silent or trickling
// outsider holds no descriptor for long.
struct PendingHello {
  net::Socket socket;
  Clock::time_point dropAt;
  Hello hello{};
  size_t received = 0;
};

// A connection this rank opened, waiting for the listener's welcome.
struct PendingWelcome {
  int peer;
  uint32_t index;
  net::Socket socket;
  uint64_t welcome = 0;
  size_t received = 0;
};

// One rank's connections while they are being set up.
class Setup {
 public:
  Setup(const Options& options, uint64_t job, std::vector<Endpoint> endpoints, std::vector<net::Socket> listeners,
        uint32_t socketsPerPeer)
      : options_(options),
        job_(job),
        endpoints_(std::move(endpoints)),
        listeners_(std::move(listeners)),
        slots_(static_cast<size_t>(options.nranks)) {
    for (const net::Socket& listener : listeners_)
      listenAddress_ += (listenAddress_.empty() ? "" : ", ") + listener.localAddress().toString();
    for (int peer : options.peers) {
      const uint32_t theirs = endpoint(peer).socketsPerPeer;
      if (theirs < 1 || theirs > kMaxSocketsPerPeer)
        throwError(trncclInvalidUsage,
                   rankName(peer) + " published " + std::to_string(theirs) + " tcp sockets per peer");
      slots_[static_cast<size_t>(peer)].resize(static_cast<size_t>(socketsBetween(theirs, socketsPerPeer)));
    }
  }

  std::vector<PeerConnections> run(const net::Deadline& deadline) {
    std::vector<int> peers = options_.peers;
    std::sort(peers.begin(), peers.end());
    for (int peer : peers)
      if (peer > options_.rank) connectTo(peer, deadline);
    while (!complete()) {
      std::vector<pollfd> fds;
      for (const net::Socket& listener : listeners_) fds.push_back({listener.fd(), POLLIN, 0});
      for (const PendingHello& p : hellos_) fds.push_back({p.socket.fd(), p.socket.pollEvents(POLLIN), 0});
      for (const PendingWelcome& p : welcomes_) fds.push_back({p.socket.fd(), POLLIN, 0});
      if (!net::pollFor(fds, deadline)) deadline.throwTimeout(describeMissing());
      // Walk backwards: advancing erases what is settled.
      const size_t first = listeners_.size();
      for (size_t i = welcomes_.size(); i-- > 0;)
        if (fds[first + hellos_.size() + i].revents != 0) advanceWelcome(i);
      for (size_t i = hellos_.size(); i-- > 0;)
        if (fds[first + i].revents != 0) advanceHello(i, deadline);
      // pollFor wakes at least every kAbortCheckInterval, so this runs on time.
      dropHellos([now = Clock::now()](const PendingHello& p) { return now >= p.dropAt; }, lateHello_);
      for (size_t l = 0; l < listeners_.size(); ++l)
        if (fds[l].revents != 0)
          while (auto socket = listeners_[l].tryAccept()) {
            socket->startTls(tls_, net::TlsRole::Server);
            hellos_.push_back({std::move(*socket), Clock::now() + greetingLimit_});
          }
    }
    // Every peer is connected; whoever still greets is no rank of this job.
    dropHellos([](const PendingHello&) { return true; }, "set-up ended before it identified itself");
    if (!listeners_.empty()) TRNCCL_INFO("tcp: rank %d listened at %s", options_.rank, listenAddress_.c_str());
    std::vector<PeerConnections> connections;
    for (int peer : peers) {
      connections.push_back({peer, {}});
      for (auto& socket : slots_[static_cast<size_t>(peer)]) connections.back().sockets.push_back(std::move(*socket));
    }
    return connections;
  }

 private:
  const Endpoint& endpoint(int rank) const { return endpoints_[static_cast<size_t>(rank)]; }

  void connectTo(int peer, const net::Deadline& deadline) {
    const Endpoint& theirs = endpoint(peer);
    const uint32_t count = theirs.addresses;
    if (count < 1 || count > kMaxRailInterfaces || !net::SocketAddress::fromWire(theirs.address[0]))
      throwError(trncclInvalidUsage, rankName(peer) + " published no tcp address: does it list " +
                                         rankName(options_.rank) + " among its peers?");
    for (size_t i = 0; i < slots_[static_cast<size_t>(peer)].size(); ++i) {
      const auto address = net::SocketAddress::fromWire(theirs.address[i % count]);
      if (!address) throwError(trncclInvalidUsage, rankName(peer) + " published a malformed tcp address");
      // The peer listened before the all-gather: refused means it is gone.
      net::Socket socket = net::Socket::connect(*address, deadline, rankName(peer), net::Socket::WhenRefused::Fail);
      // The handshake waits for the peer, which answers once it has
      // connected to its own higher-ranked peers: the highest only answers.
      socket.startTls(tls_, net::TlsRole::Client);
      const Hello hello =
          makeHello(job_, endpoint(peer).secret, options_.rank, options_.nranks, static_cast<uint32_t>(i));
      socket.sendAll(&hello, sizeof hello, deadline);
      welcomes_.push_back({peer, static_cast<uint32_t>(i), std::move(socket)});
    }
  }

  void advanceWelcome(size_t index) {
    PendingWelcome& p = welcomes_[index];
    try {
      if (!readSome(p.socket, p.welcome, p.received)) return;
    } catch (const Error& e) {
      if (e.code() != trncclRemoteError || p.socket.tlsFailed()) throw;
      throwError(trncclRemoteError, p.socket.describePeer() +
                                        " refused the tcp connection (is it in this "
                                        "communicator? its log says why)");
    }
    if (p.welcome != kWelcome)
      throwError(trncclRemoteError, p.socket.describePeer() + " answered the tcp hello with something else");
    slots_[static_cast<size_t>(p.peer)][p.index] = std::move(p.socket);
    welcomes_.erase(welcomes_.begin() + static_cast<ptrdiff_t>(index));
  }

  void advanceHello(size_t index, const net::Deadline& deadline) {
    PendingHello& p = hellos_[index];
    std::string refusal;
    try {
      const bool whole = readSome(p.socket, p.hello, p.received);
      refusal = judge(p);
      if (refusal.empty() && !whole) return;  // more to come
      if (refusal.empty()) p.socket.sendAll(&kWelcome, sizeof kWelcome, deadline);
    } catch (const Error& e) {
      refusal = e.code() == trncclRemoteError && !p.socket.tlsFailed() ? "closed before identifying itself" : e.what();
    }
    if (refusal.empty()) {
      p.socket.setPeerName(rankName(p.hello.rank));
      slots_[static_cast<size_t>(p.hello.rank)][p.hello.socket] = std::move(p.socket);
    } else {
      TRNCCL_WARN("tcp: rank %d refused a connection from %s: %s", options_.rank,
                  p.socket.peerAddress().toString().c_str(), refusal.c_str());
    }
    hellos_.erase(hellos_.begin() + static_cast<ptrdiff_t>(index));
  }

  // Closes the pending hellos `due` picks, logging each once.
  template <class Due>
  void dropHellos(Due due, const std::string& why) {
    std::erase_if(hellos_, [&](const PendingHello& p) {
      if (!due(p)) return false;
      TRNCCL_WARN("tcp: rank %d dropped a connection from %s: %s (it sent %zu of the hello's %zu bytes)", options_.rank,
                  p.socket.peerAddress().toString().c_str(), why.c_str(), p.received, sizeof(Hello));
      return true;
    });
  }

  // Why the hello is refused; empty if it is (so far) right. Garbage is
  // refused at its first 8 bytes.
  std::string judge(const PendingHello& p) const {
    const HelloExpectation expected{job_, endpoint(options_.rank).secret, options_.rank, options_.nranks};
    std::string problem = helloProblem(p.hello, p.received, expected,
                                       [this](int rank) { return !slots_[static_cast<size_t>(rank)].empty(); });
    if (!problem.empty() || p.received < sizeof(Hello)) return problem;
    const Hello& h = p.hello;
    const auto& slots = slots_[static_cast<size_t>(h.rank)];
    if (h.socket >= slots.size())
      return "connection index " + std::to_string(h.socket) + " of " + std::to_string(slots.size());
    if (slots[h.socket]) return "a second connection " + std::to_string(h.socket);
    return {};
  }

  bool complete() const {
    return std::none_of(slots_.begin(), slots_.end(), [](const auto& slots) {
      return std::find(slots.begin(), slots.end(), std::nullopt) != slots.end();
    });
  }

  std::string describeMissing() const {
    std::string connecting, accepting;
    for (size_t r = 0; r < slots_.size(); ++r) {
      const auto& slots = slots_[r];
      if (std::find(slots.begin(), slots.end(), std::nullopt) == slots.end()) continue;
      std::string& list = static_cast<int>(r) < options_.rank ? connecting : accepting;
      list += (list.empty() ? "" : ", ") + std::to_string(r);
    }
    std::string text = "waiting for ";
    if (!connecting.empty()) text += "rank(s) " + connecting + " to connect to " + listenAddress_;
    if (!connecting.empty() && !accepting.empty()) text += " and for ";
    if (!accepting.empty()) text += "rank(s) " + accepting + " to accept tcp connections";
    return text;
  }

  const Options& options_;
  uint64_t job_;
  std::vector<Endpoint> endpoints_;
  std::vector<net::Socket> listeners_;  // one per rail interface
  std::shared_ptr<const net::TlsContext> tls_ = encryption::context();
  const std::chrono::milliseconds greetingLimit_ = net::greetingLimit();
  const std::string lateHello_ = "no whole hello within " + std::to_string(greetingLimit_.count()) + " ms";
  std::string listenAddress_;
  // Per rank: the connections with it (none for ranks that are not peers).
  std::vector<std::vector<std::optional<net::Socket>>> slots_;
  std::vector<PendingHello> hellos_;
  std::vector<PendingWelcome> welcomes_;
};

}  // namespace

std::string helloProblem(const Hello& h, size_t received, const HelloExpectation& expected,
                         const std::function<bool(int)>& isPeer) {
  if (received >= sizeof h.magic && h.magic != kHelloMagic) return "not a trnccl tcp transport connection";
  if (received < sizeof(Hello)) return {};
  if (h.version != kHelloVersion)
    return "protocol version " + std::to_string(h.version) + ", expected " + std::to_string(kHelloVersion);
  if (h.job != expected.job) return "a connection for another communicator";
  if (h.secret != expected.secret) return "wrong secret";
  if (h.nranks != expected.nranks || h.rank < 0 || h.rank >= expected.rank || !isPeer(h.rank))
    return "claims to be rank " + std::to_string(h.rank) + " of " + std::to_string(h.nranks) +
           ", not a lower-ranked peer of rank " + std::to_string(expected.rank) + " of " +
           std::to_string(expected.nranks);
  return {};
}

Hello makeHello(uint64_t job, const Secret& listenerSecret, int rank, int nranks, uint32_t socket) {
  return {kHelloMagic, kHelloVersion, socket, job, listenerSecret, rank, nranks};
}

std::vector<PeerConnections> connectPeers(const Options& options, const Config& config) {
  checkOptions(options);
  const auto rank = static_cast<size_t>(options.rank);
  const bool listens =
      std::any_of(options.peers.begin(), options.peers.end(), [&](int peer) { return peer < options.rank; });
  std::vector<net::Socket> listeners;
  std::vector<Endpoint> endpoints(static_cast<size_t>(options.nranks));
  Endpoint& own = endpoints[rank];
  own.socketsPerPeer = static_cast<uint32_t>(config.socketsPerPeer);
  if (listens) {
    for (const net::Interface& rail : net::selectInterfaces()) {
      if (listeners.size() == kMaxRailInterfaces) break;
      listeners.push_back(net::Socket::listen(rail.address));
      own.address[listeners.size() - 1] = listeners.back().localAddress().toWire();
    }
    own.addresses = static_cast<uint32_t>(listeners.size());
    own.secret = randomSecret();
  }
  options.oob->allGather(endpoints.data(), sizeof(Endpoint));
  try {
    const net::Deadline deadline(options.timeout);
    Setup setup(options, jobIdOf(options.jobKey), std::move(endpoints), std::move(listeners),
                static_cast<uint32_t>(config.socketsPerPeer));
    return setup.run(deadline);
  } catch (const Error& e) {
    throw Error(e.code(),
                "tcp transport of rank " + std::to_string(options.rank) + " connecting to its peers: " + e.what());
  }
}

}  // namespace trnccl::transport::tcp
