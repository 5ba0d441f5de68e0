// The bootstrap's public face: a rank's connections to its peers, and the
// all-gather, barrier, broadcast and point-to-point messages over them.
#include "core/bootstrap.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/log.h"
#include "core/bootstrap_inbox.h"
#include "core/bootstrap_protocol.h"
#include "core/rendezvous.h"

namespace trnccl::core {

using namespace wire;

// ---- Bootstrap --------------------------------------------------------------

class Bootstrap::Impl {
 public:
  Impl(int rank, int nranks, const Secret& secret, std::shared_ptr<const net::TlsContext> tls, net::Socket listener,
       Joined joined, milliseconds timeout, const std::atomic<bool>* abortFlag)
      : rank_(rank),
        nranks_(nranks),
        owner_("bootstrap rank " + std::to_string(rank) + "/" + std::to_string(nranks)),
        secret_(secret),
        tls_(std::move(tls)),
        listener_(std::move(listener)),
        address_(listener_.localAddress().toString()),
        peers_(std::move(joined.peers)),
        rootLink_(std::move(joined.rootLink)),
        outgoing_(nranks),
        incoming_(nranks),
        timeout_(timeout),
        abortFlag_(abortFlag) {}

  int rank() const { return rank_; }
  int size() const { return nranks_; }
  const std::string& address() const { return address_; }
  net::Socket takeRootLink() { return std::move(rootLink_); }

  // Ring: in step s, rank r passes block r-s to r+1 and gets block r-s-1 from r-1.
  void allGather(void* data, size_t bytes) {
    net::Deadline deadline(timeout_, abortFlag_);
    char* blocks = static_cast<char*>(data);
    int next = (rank_ + 1) % nranks_;
    int prev = (rank_ + nranks_ - 1) % nranks_;
    for (int step = 0; step < nranks_ - 1; ++step) {
      int sendBlock = (rank_ - step + nranks_) % nranks_;
      int recvBlock = (rank_ - step - 1 + 2 * nranks_) % nranks_;
      Outgoing out(next, Channel::Collective, 0, blocks + sendBlock * bytes, bytes);
      Expected in{prev, {static_cast<uint32_t>(Channel::Collective), 0}, blocks + recvBlock * bytes, bytes};
      transfer(&out, &in, deadline);
    }
  }

  void broadcast(void* data, size_t bytes, int root) {
    net::Deadline deadline(timeout_, abortFlag_);
    if (rank_ != root) {
      Expected in{root, {static_cast<uint32_t>(Channel::Collective), 0}, data, bytes};
      return transfer(nullptr, &in, deadline);
    }
    for (int peer = 0; peer < nranks_; ++peer) {
      if (peer == rank_) continue;
      Outgoing out(peer, Channel::Collective, 0, data, bytes);
      transfer(&out, nullptr, deadline);
    }
  }

  milliseconds timeout() const { return timeout_; }

  void send(int peer, int tag, const void* data, size_t bytes) {
    net::Deadline deadline(timeout_, abortFlag_);
    Outgoing out(peer, Channel::User, tag, data, bytes);
    transfer(&out, nullptr, deadline);
  }

  void recv(int peer, int tag, void* data, size_t bytes, std::chrono::milliseconds timeout) {
    net::Deadline deadline(timeout, abortFlag_);
    Expected in{peer, {static_cast<uint32_t>(Channel::User), tag}, data, bytes};
    transfer(nullptr, &in, deadline);
  }

 private:
  // A framed message on its way out.
  struct Outgoing {
    Outgoing(int to, Channel channel, int tag, const void* data, size_t bytes)
        : peer(to), frame(sizeof(FrameHeader) + bytes) {
      FrameHeader header{static_cast<uint32_t>(channel), tag, bytes};
      std::memcpy(frame.data(), &header, sizeof(header));
      if (bytes > 0) std::memcpy(frame.data() + sizeof(header), data, bytes);
    }
    bool done() const { return sent == frame.size(); }
    int peer;
    std::vector<char> frame;
    size_t sent = 0;
  };

  // A message this rank waits for.
  struct Expected {
    int peer;
    MessageKey key;
    void* data;
    size_t bytes;
    bool done = false;
  };

  // Sends and receives at the same time (a ring step must not wait for its
  // send before receiving), admitting peers' new connections meanwhile.
  void transfer(Outgoing* out, Expected* in, const net::Deadline& deadline) {
    // Between calls nobody read the greetings (Greeting::ownerWasAway).
    const Clock::duration away = Clock::now() - awaySince_;
    for (Greeting& greeting : greetings_) greeting.ownerWasAway(away);
    struct AwayFromReturn {
      Clock::time_point& since;
      ~AwayFromReturn() { since = Clock::now(); }
    } awayFromReturn{awaySince_};
    dropOverdue(greetings_, owner_);
    net::Socket* outSocket = out ? &linkTo(*out, deadline) : nullptr;
    while (true) {
      if (out && !out->done())
        out->sent += outSocket->sendSome(out->frame.data() + out->sent, out->frame.size() - out->sent);
      if (in && !in->done && incoming_[in->peer]) receive(*in);
      if ((!out || out->done()) && (!in || in->done)) return;

      std::vector<pollfd> fds{{listener_.fd(), POLLIN, 0}};
      for (Greeting& greeting : greetings_)
        fds.push_back({greeting.socket().fd(), greeting.socket().pollEvents(POLLIN), 0});
      if (out && !out->done()) fds.push_back({outSocket->fd(), outSocket->pollEvents(POLLOUT), 0});
      if (in && !in->done && incoming_[in->peer]) fds.push_back({incoming_[in->peer]->socket().fd(), POLLIN, 0});
      if (!net::pollFor(fds, deadline)) deadline.throwTimeout(describeWait(out, in));

      for (size_t i = greetings_.size(); i-- > 0;) {
        if (fds[1 + i].revents != 0) advanceGreeting(i);
      }
      // pollFor wakes at least every kAbortCheckInterval, so this runs on time.
      dropOverdue(greetings_, owner_);
      if (fds[0].revents != 0) acceptGreetings(listener_, tls_, sizeof(Hello), greetings_);
    }
  }

  void receive(Expected& in) {
    Inbox& inbox = *incoming_[in.peer];
    try {
      in.done = inbox.take(in.key, in.data, in.bytes);
      if (!in.done) {
        inbox.readAvailable(in.key, in.bytes);
        in.done = inbox.take(in.key, in.data, in.bytes);
      }
    } catch (const Error&) {
      // The stream cannot be trusted past a bad frame.
      incoming_[in.peer].reset();
      throw;
    }
  }

  std::string describeWait(const Outgoing* out, const Expected* in) const {
    std::string text;
    if (out && !out->done()) text = "sending to rank " + std::to_string(out->peer);
    if (in && !in->done) {
      text += text.empty() ? "" : " and ";
      text += incoming_[in->peer] ? "waiting for a message from rank " : "waiting for a connection from rank ";
      text += std::to_string(in->peer) + " (listening at " + peers_[in->peer].toString() + ")";
    }
    return text;
  }

  // The connection this rank sends `out` on, opened on first use; a new
  // one's hello goes out ahead of the message, without waiting: a TLS
  // handshake needs the peer, which may be sending to this rank meanwhile.
  net::Socket& linkTo(Outgoing& out, const net::Deadline& deadline) {
    const int peer = out.peer;
    if (!outgoing_[peer]) {
      // Every rank listened before it registered: refused means it is gone.
      net::Socket socket =
          net::Socket::connect(peers_[peer], deadline, "rank " + std::to_string(peer), net::Socket::WhenRefused::Fail);
      socket.startTls(tls_, net::TlsRole::Client);
      Hello hello = makeHello(Purpose::PeerLink, secret_, rank_, nranks_);
      const auto* bytes = reinterpret_cast<const char*>(&hello);
      out.frame.insert(out.frame.begin() + static_cast<ptrdiff_t>(out.sent), bytes, bytes + sizeof(hello));
      outgoing_[peer] = std::move(socket);
    }
    return *outgoing_[peer];
  }

  void advanceGreeting(size_t index) {
    Greeting& greeting = greetings_[index];
    Greeting::Status status = greeting.advance(secret_, Purpose::PeerLink);
    if (status == Greeting::Status::Incomplete) return;
    if (status == Greeting::Status::Complete) {
      Hello hello = greeting.hello();
      if (hello.nranks != nranks_ || hello.rank < 0 || hello.rank >= nranks_ || hello.rank == rank_) {
        greeting.refuse("claims to be rank " + std::to_string(hello.rank) + " of " + std::to_string(hello.nranks));
      } else if (incoming_[hello.rank]) {
        greeting.refuse("a second connection from rank " + std::to_string(hello.rank));
      } else {
        greeting.socket().setPeerName("rank " + std::to_string(hello.rank));
        incoming_[hello.rank] = std::make_unique<Inbox>(std::move(greeting.socket()));
      }
    }
    if (!greeting.refusal().empty()) {
      TRNCCL_WARN("bootstrap rank %d/%d refused a connection from %s: %s", rank_, nranks_,
                  greeting.socket().peerAddress().toString().c_str(), greeting.refusal().c_str());
    }
    greetings_.erase(greetings_.begin() + static_cast<ptrdiff_t>(index));
  }

  int rank_;
  int nranks_;
  std::string owner_;  // for the greetings it drops
  Secret secret_;
  std::shared_ptr<const net::TlsContext> tls_;
  net::Socket listener_;
  std::string address_;
  std::vector<net::SocketAddress> peers_;
  net::Socket rootLink_;  // until the communicator's status responder takes it
  std::vector<std::optional<net::Socket>> outgoing_;
  std::vector<std::unique_ptr<Inbox>> incoming_;
  std::vector<Greeting> greetings_;             // accepted, not yet identified
  Clock::time_point awaySince_ = Clock::now();  // when the last transfer() returned
  milliseconds timeout_;
  const std::atomic<bool>* abortFlag_;
};

std::unique_ptr<Bootstrap> Bootstrap::connect(const trncclUniqueId& id, int rank, int nranks, milliseconds timeout,
                                              const std::atomic<bool>* abortFlag) {
  RendezvousInfo info = decodeUniqueId(id);
  if (nranks < 1) throwInvalidArgument("nranks", "must be at least 1, not " + std::to_string(nranks));
  if (rank < 0 || rank >= nranks) {
    throwInvalidArgument("rank", "is " + std::to_string(rank) + ", not in [0, " + std::to_string(nranks) + ")");
  }
  if (timeout <= milliseconds::zero())
    throwInvalidArgument("timeout", "must be positive, not " + std::to_string(timeout.count()));

  return withContext(rankContext(rank, nranks, "connect"), [&] {
    net::Deadline deadline(timeout, abortFlag);
    std::shared_ptr<const net::TlsContext> tls = jobTls(info);
    net::Socket listener = net::Socket::listen(net::selectInterface(info.root.family()).address);
    Joined joined = joinRendezvous(info, rank, nranks, listener.localAddress(), deadline);
    TRNCCL_INFO("bootstrap rank %d/%d listening at %s joined %s", rank, nranks,
                listener.localAddress().toString().c_str(), info.root.toString().c_str());
    return std::unique_ptr<Bootstrap>(new Bootstrap(std::make_unique<Impl>(
        rank, nranks, info.secret, std::move(tls), std::move(listener), std::move(joined), timeout, abortFlag)));
  });
}

Bootstrap::Bootstrap(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Bootstrap::~Bootstrap() = default;

int Bootstrap::rank() const { return impl_->rank(); }
int Bootstrap::size() const { return impl_->size(); }
std::string Bootstrap::address() const { return impl_->address(); }
net::Socket Bootstrap::takeRootLink() { return impl_->takeRootLink(); }
milliseconds Bootstrap::timeout() const { return impl_->timeout(); }

void Bootstrap::allGather(void* data, size_t bytes) {
  if (data == nullptr && bytes > 0) throwInvalidArgument("data", "is NULL");
  withContext(rankContext(rank(), size(), "allGather"), [&] { impl_->allGather(data, bytes); });
}

void Bootstrap::barrier() {
  std::vector<char> bytes(size());
  withContext(rankContext(rank(), size(), "barrier"), [&] { impl_->allGather(bytes.data(), 1); });
}

void Bootstrap::broadcast(void* data, size_t bytes, int root) {
  if (data == nullptr && bytes > 0) throwInvalidArgument("data", "is NULL");
  if (root < 0 || root >= size())
    throwInvalidArgument("root", "is " + std::to_string(root) + ", not a rank of " + std::to_string(size()));
  withContext(rankContext(rank(), size(), "broadcast"), [&] { impl_->broadcast(data, bytes, root); });
}

namespace {
void checkPeer(int peer, int rank, int nranks) {
  if (peer < 0 || peer >= nranks || peer == rank) {
    throwInvalidArgument("peer", "is " + std::to_string(peer) + ", not another rank of " + std::to_string(nranks));
  }
}
}  // namespace

void Bootstrap::send(int peer, int tag, const void* data, size_t bytes) {
  checkPeer(peer, rank(), size());
  if (data == nullptr && bytes > 0) throwInvalidArgument("data", "is NULL");
  withContext(rankContext(rank(), size(), "send"), [&] { impl_->send(peer, tag, data, bytes); });
}

void Bootstrap::recv(int peer, int tag, void* data, size_t bytes) { recv(peer, tag, data, bytes, timeout()); }

void Bootstrap::recv(int peer, int tag, void* data, size_t bytes, std::chrono::milliseconds timeout) {
  checkPeer(peer, rank(), size());
  if (data == nullptr && bytes > 0) throwInvalidArgument("data", "is NULL");
  withContext(rankContext(rank(), size(), "recv"), [&] { impl_->recv(peer, tag, data, bytes, timeout); });
}

}  // namespace trnccl::core
