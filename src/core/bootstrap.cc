#include "core/bootstrap.h"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/log.h"

namespace trnccl::core {

namespace {

using Clock = std::chrono::steady_clock;
using Secret = std::array<uint8_t, 16>;
using std::chrono::milliseconds;

constexpr uint64_t kIdMagic = 0x44494c43434e5254;     // "TRNCCLID"
constexpr uint64_t kHelloMagic = 0x4f4c4c45484e5254;  // "TRNHELLO"
constexpr uint32_t kProtocolVersion = 1;
constexpr size_t kMaxErrorMessage = 4096;
constexpr uint64_t kMaxFrameBytes = uint64_t{1} << 30;

// ---- Wire formats (all parties run the same build on the same kind of host) --

struct IdLayout {
  uint64_t magic;
  uint32_t version;
  uint32_t reserved;
  Secret secret;
  WireAddress root;
  uint8_t unused[72];
};
static_assert(sizeof(IdLayout) == sizeof(trncclUniqueId));

enum class Purpose : uint32_t { JoinRoot = 1, PeerLink = 2 };

// The first bytes on every connection.
struct Hello {
  uint64_t magic;
  uint32_t version;
  uint32_t purpose;
  Secret secret;
  int32_t rank;
  int32_t nranks;
};

// Follows the Hello on a connection to the root.
struct Registration {
  WireAddress listenAddress;
  uint64_t replyWithinMs;  // when the rank will stop waiting for the table
};

// The root's answer: trncclSuccess and nranks WireAddresses, or an error code
// and its message.
struct ReplyHeader {
  int32_t code;
  uint32_t bytes;
};

enum class Channel : uint32_t { User = 1, Collective = 2 };

// Precedes every message between ranks.
struct FrameHeader {
  uint32_t channel;
  int32_t tag;
  uint64_t bytes;
};

struct MessageKey {
  uint32_t channel;
  int32_t tag;
  auto operator<=>(const MessageKey&) const = default;
};

Hello makeHello(Purpose purpose, const Secret& secret, int rank, int nranks) {
  return {kHelloMagic, kProtocolVersion, static_cast<uint32_t>(purpose), secret, rank, nranks};
}

Secret randomSecret() {
  Secret secret{};
  ssize_t got;
  do {
    got = getrandom(secret.data(), secret.size(), 0);
  } while (got < 0 && errno == EINTR);
  if (got != static_cast<ssize_t>(secret.size())) throwSystemError("getrandom", errno);
  return secret;
}

// "rank 3", "ranks 0, 4-7".
std::string describeRanks(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size();) {
    size_t last = i;
    while (last + 1 < ranks.size() && ranks[last + 1] == ranks[last] + 1) ++last;
    text += (i ? ", " : "") + std::to_string(ranks[i]);
    if (last > i) text += "-" + std::to_string(ranks[last]);
    i = last + 1;
  }
  return text;
}

std::string rankContext(int rank, int nranks, const char* operation) {
  return "bootstrap rank " + std::to_string(rank) + "/" + std::to_string(nranks) + " " + operation +
         ": ";
}

template <class Body>
auto withContext(const std::string& context, Body&& body) {
  try {
    return body();
  } catch (const Error& e) {
    throw Error(e.code(), context + e.what());
  }
}

// The fixed-size greeting that opens a connection (a Hello, plus a
// Registration on connections to the root), read without blocking so that a
// silent or slow connection never holds up anyone else.
class Greeting {
 public:
  enum class Status { Incomplete, Complete, Refused };

  Greeting(Socket socket, size_t size) : socket_(std::move(socket)), bytes_(size) {}

  Status advance(const Secret& secret, Purpose purpose) {
    try {
      while (received_ < bytes_.size()) {
        size_t got = socket_.recvSome(bytes_.data() + received_, bytes_.size() - received_);
        if (got == 0) break;
        received_ += got;
      }
    } catch (const Error& e) {
      return refuse(e.code() == trncclRemoteError ? "closed before identifying itself" : e.what());
    }
    // Judge as early as possible: garbage is refused at its first bytes.
    Hello hello{};
    std::memcpy(&hello, bytes_.data(), std::min(received_, sizeof(hello)));
    if (received_ >= sizeof(hello.magic) && hello.magic != kHelloMagic)
      return refuse("not a trnccl bootstrap connection");
    if (received_ < sizeof(Hello)) return Status::Incomplete;
    if (hello.version != kProtocolVersion)
      return refuse("protocol version " + std::to_string(hello.version) + ", expected " +
                    std::to_string(kProtocolVersion));
    if (hello.purpose != static_cast<uint32_t>(purpose)) return refuse("unexpected purpose");
    if (hello.secret != secret) return refuse("wrong secret");
    return received_ == bytes_.size() ? Status::Complete : Status::Incomplete;
  }

  Status refuse(std::string reason) {
    refusal_ = std::move(reason);
    return Status::Refused;
  }
  const std::string& refusal() const { return refusal_; }

  Hello hello() const { return read<Hello>(0); }
  Registration registration() const { return read<Registration>(sizeof(Hello)); }
  Socket& socket() { return socket_; }

 private:
  template <class T>
  T read(size_t offset) const {
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;
  }

  Socket socket_;
  std::vector<char> bytes_;
  size_t received_ = 0;
  std::string refusal_;
};

// ---- The rendezvous root ----------------------------------------------------

// Serves one unique id on a thread of its own: admits ranks that present the
// secret, sends every rank the table of listen addresses once all nranks are
// there, and ends. A failure (disagreeing ranks, a rank that left, a timeout)
// is sent to every rank that arrived, and to any that still comes, so no rank
// waits in vain.
class RendezvousRoot {
 public:
  RendezvousRoot(Socket listener, const Secret& secret, milliseconds timeout)
      : listener_(std::move(listener)),
        address_(listener_.localAddress().toString()),
        secret_(secret),
        deadline_(timeout),
        started_(Clock::now()) {}

  void run() noexcept {
    try {
      serve();
    } catch (const std::exception& e) {
      TRNCCL_WARN("bootstrap root %s failed: %s", address_.c_str(), e.what());
    }
  }

 private:
  struct Arrival {
    Socket socket;
    int rank;
    int nranks;
    WireAddress listenAddress;
    Clock::time_point replyBy;
  };

  void serve() {
    TRNCCL_INFO("bootstrap root listening at %s", address_.c_str());
    // Done once as many ranks were answered as the largest nranks announced.
    while (expected_ == 0 || answered_ < expected_) {
      auto replyBy = Clock::time_point::max();
      for (const Arrival& arrival : arrivals_) replyBy = std::min(replyBy, arrival.replyBy);
      if (Clock::now() >= replyBy) {
        fail(trncclTimeout, "timed out: " + missingRanks());
        continue;
      }
      if (deadline_.expired()) return giveUp();

      std::vector<pollfd> fds{{listener_.fd(), POLLIN, 0}};
      for (Greeting& greeting : greetings_) fds.push_back({greeting.socket().fd(), POLLIN, 0});
      for (Arrival& arrival : arrivals_) fds.push_back({arrival.socket.fd(), POLLIN, 0});
      auto untilReply = replyBy == Clock::time_point::max()
                            ? Deadline::kAbortCheckInterval
                            : std::chrono::ceil<milliseconds>(replyBy - Clock::now());
      pollFor(fds, deadline_, untilReply);

      // An arrival sends nothing after registering: readable means it left.
      for (size_t i = 0; i < arrivals_.size(); ++i) {
        if (fds[1 + greetings_.size() + i].revents != 0) {
          fail(trncclRemoteError, "rank " + std::to_string(arrivals_[i].rank) +
                                      " left before all ranks arrived at the rendezvous root " +
                                      address_);
          break;
        }
      }
      for (size_t i = greetings_.size(); i-- > 0;) {
        if (fds[1 + i].revents != 0) advanceGreeting(i);
      }
      if (fds[0].revents != 0) {
        while (auto socket = listener_.tryAccept())
          greetings_.emplace_back(std::move(*socket), sizeof(Hello) + sizeof(Registration));
      }
    }
    TRNCCL_INFO("bootstrap root %s done", address_.c_str());
  }

  void advanceGreeting(size_t index) {
    Greeting& greeting = greetings_[index];
    Greeting::Status status = greeting.advance(secret_, Purpose::JoinRoot);
    if (status == Greeting::Status::Incomplete) return;
    if (status == Greeting::Status::Complete) status = admit(greeting);
    if (status == Greeting::Status::Refused) {
      TRNCCL_WARN("bootstrap root %s refused a connection from %s: %s", address_.c_str(),
                  greeting.socket().peerAddress().toString().c_str(), greeting.refusal().c_str());
    }
    greetings_.erase(greetings_.begin() + static_cast<ptrdiff_t>(index));
  }

  Greeting::Status admit(Greeting& greeting) {
    Hello hello = greeting.hello();
    Registration registration = greeting.registration();
    if (hello.nranks < 1 || hello.rank < 0 || hello.rank >= hello.nranks ||
        !SocketAddress::fromWire(registration.listenAddress)) {
      return greeting.refuse("malformed registration");
    }
    // Answer a little before the rank stops listening, so it learns why.
    auto replyWithin = milliseconds(std::min<uint64_t>(registration.replyWithinMs, 86400000));
    Arrival arrival{std::move(greeting.socket()), hello.rank, hello.nranks,
                    registration.listenAddress,
                    Clock::now() + replyWithin - std::min(replyWithin / 10, milliseconds(200))};
    arrival.socket.setPeerName("rank " + std::to_string(hello.rank));
    expected_ = std::max(expected_, hello.nranks);
    if (failure_) {
      answerFailure(arrival);
      return Greeting::Status::Complete;
    }
    arrivals_.push_back(std::move(arrival));
    checkAgreement();
    return Greeting::Status::Complete;
  }

  void checkAgreement() {
    const Arrival& newest = arrivals_.back();
    for (const Arrival& other : arrivals_) {
      if (other.nranks != newest.nranks) {
        return fail(trncclInvalidUsage,
                    "ranks disagree on the number of ranks: rank " + std::to_string(other.rank) +
                        " says " + std::to_string(other.nranks) + ", rank " +
                        std::to_string(newest.rank) + " says " + std::to_string(newest.nranks));
      }
      if (&other != &newest && other.rank == newest.rank) {
        return fail(trncclInvalidUsage,
                    "rank " + std::to_string(newest.rank) +
                        " was claimed twice (by the processes listening at " +
                        SocketAddress::fromWire(other.listenAddress)->toString() + " and " +
                        SocketAddress::fromWire(newest.listenAddress)->toString() + ")");
      }
    }
    if (static_cast<int>(arrivals_.size()) == newest.nranks) sendTable();
  }

  void sendTable() {
    std::vector<WireAddress> table(arrivals_.size());
    for (const Arrival& arrival : arrivals_) table[arrival.rank] = arrival.listenAddress;
    for (Arrival& arrival : arrivals_)
      answer(arrival, trncclSuccess, table.data(), table.size() * sizeof(WireAddress));
    TRNCCL_INFO("bootstrap root %s: all %zu ranks arrived after %lld ms", address_.c_str(),
                arrivals_.size(), static_cast<long long>(elapsed().count()));
    answered_ += static_cast<int>(arrivals_.size());
    arrivals_.clear();
  }

  void fail(trncclResult_t code, const std::string& message) {
    TRNCCL_WARN("bootstrap root %s: %s", address_.c_str(), message.c_str());
    failure_.emplace(code, message);
    for (Arrival& arrival : arrivals_) answerFailure(arrival);
    arrivals_.clear();
  }

  void giveUp() {
    if (!arrivals_.empty()) {
      fail(trncclTimeout,
           "gave up after " + std::to_string(elapsed().count()) + " ms: " + missingRanks());
    } else if (!failure_) {
      TRNCCL_WARN("bootstrap root %s gave up after %lld ms: %s", address_.c_str(),
                  static_cast<long long>(elapsed().count()),
                  answered_ == 0 ? "no rank arrived" : "some ranks never arrived");
    }
  }

  std::string missingRanks() const {
    int nranks = arrivals_.front().nranks;
    std::vector<bool> arrived(nranks);
    for (const Arrival& arrival : arrivals_) arrived[arrival.rank] = true;
    std::vector<int> missing;
    for (int rank = 0; rank < nranks; ++rank)
      if (!arrived[rank]) missing.push_back(rank);
    return describeRanks(missing) + " never arrived at the rendezvous root " + address_ + " (" +
           std::to_string(arrivals_.size()) + " of " + std::to_string(nranks) + " arrived)";
  }

  void answerFailure(Arrival& arrival) {
    std::string message(failure_->what());
    message.resize(std::min(message.size(), kMaxErrorMessage));
    answer(arrival, failure_->code(), message.data(), message.size());
    ++answered_;
  }

  void answer(Arrival& arrival, trncclResult_t code, const void* payload, size_t bytes) {
    ReplyHeader header{code, static_cast<uint32_t>(bytes)};
    try {
      arrival.socket.sendAll(&header, sizeof(header), deadline_);
      arrival.socket.sendAll(payload, bytes, deadline_);
    } catch (const Error& e) {
      TRNCCL_WARN("bootstrap root %s could not answer: %s", address_.c_str(), e.what());
    }
  }

  milliseconds elapsed() const {
    return std::chrono::duration_cast<milliseconds>(Clock::now() - started_);
  }

  Socket listener_;
  std::string address_;
  Secret secret_;
  Deadline deadline_;
  Clock::time_point started_;
  std::vector<Greeting> greetings_;
  std::vector<Arrival> arrivals_;
  std::optional<Error> failure_;
  int expected_ = 0;
  int answered_ = 0;
};

// A rank's side of the rendezvous: register, get the table of listen addresses.
std::vector<SocketAddress> joinRendezvous(const RendezvousInfo& info, int rank, int nranks,
                                          const SocketAddress& listenAddress,
                                          const Deadline& deadline) {
  Socket root = Socket::connect(info.root, deadline, "the rendezvous root");
  struct {
    Hello hello;
    Registration registration;
  } join{makeHello(Purpose::JoinRoot, info.secret, rank, nranks),
         {listenAddress.toWire(),
          static_cast<uint64_t>(
              std::chrono::duration_cast<milliseconds>(deadline.remaining()).count())}};
  static_assert(sizeof(join) == sizeof(Hello) + sizeof(Registration));
  root.sendAll(&join, sizeof(join), deadline);

  ReplyHeader reply{};
  root.recvAll(&reply, sizeof(reply), deadline);
  auto malformed = [&] {
    throwError(trncclRemoteError,
               "malformed reply from the rendezvous root " + info.root.toString());
  };
  if (reply.code == trncclSuccess) {
    if (reply.bytes != nranks * sizeof(WireAddress)) malformed();
    std::vector<WireAddress> table(nranks);
    root.recvAll(table.data(), reply.bytes, deadline);
    std::vector<SocketAddress> peers;
    for (const WireAddress& wire : table) {
      auto address = SocketAddress::fromWire(wire);
      if (!address) malformed();
      peers.push_back(*address);
    }
    return peers;
  }
  bool knownFailure = reply.code == trncclInvalidUsage || reply.code == trncclTimeout ||
                      reply.code == trncclRemoteError;
  if (!knownFailure || reply.bytes > kMaxErrorMessage) malformed();
  std::string message(reply.bytes, '\0');
  root.recvAll(message.data(), message.size(), deadline);
  throwError(static_cast<trncclResult_t>(reply.code), message);
}

// Messages from one peer: frames are read without blocking as they come and
// parked by (channel, tag) until someone asks for them.
class Inbox {
 public:
  explicit Inbox(Socket socket) : socket_(std::move(socket)) {}

  Socket& socket() { return socket_; }

  // Reads what has arrived, up to the first complete message for `awaited`
  // (reading on could run into the peer's orderly close). A frame for
  // `awaited` that is next in line must have `awaitedBytes`; anything
  // malformed throws.
  void readAvailable(const MessageKey& awaited, size_t awaitedBytes) {
    while (true) {
      if (headerBytes_ < sizeof(header_)) {
        size_t got = socket_.recvSome(reinterpret_cast<char*>(&header_) + headerBytes_,
                                      sizeof(header_) - headerBytes_);
        if (got == 0) return;
        headerBytes_ += got;
        if (headerBytes_ < sizeof(header_)) continue;
        startPayload(awaited, awaitedBytes);
      } else {
        size_t got =
            socket_.recvSome(payload_.data() + payloadBytes_, payload_.size() - payloadBytes_);
        if (got == 0) return;
        payloadBytes_ += got;
      }
      if (headerBytes_ == sizeof(header_) && payloadBytes_ == payload_.size() &&
          park() == awaited) {
        return;
      }
    }
  }

  // Moves the oldest parked message for `key` into data; false if none.
  bool take(const MessageKey& key, void* data, size_t bytes) {
    auto queue = parked_.find(key);
    if (queue == parked_.end() || queue->second.empty()) return false;
    checkSize(key, queue->second.front().size(), bytes);
    if (bytes > 0) std::memcpy(data, queue->second.front().data(), bytes);
    queue->second.pop_front();
    return true;
  }

 private:
  void startPayload(const MessageKey& awaited, size_t awaitedBytes) {
    bool knownChannel = header_.channel == static_cast<uint32_t>(Channel::User) ||
                        header_.channel == static_cast<uint32_t>(Channel::Collective);
    if (!knownChannel || header_.bytes > kMaxFrameBytes) {
      throwError(trncclRemoteError, "malformed message header from " + socket_.describePeer());
    }
    MessageKey key{header_.channel, header_.tag};
    if (key == awaited && (parked_.count(key) == 0 || parked_[key].empty()))
      checkSize(key, header_.bytes, awaitedBytes);
    payload_.assign(header_.bytes, 0);
    payloadBytes_ = 0;
  }

  MessageKey park() {
    MessageKey key{header_.channel, header_.tag};
    parked_[key].push_back(std::move(payload_));
    payload_.clear();
    headerBytes_ = 0;
    payloadBytes_ = 0;
    return key;
  }

  void checkSize(const MessageKey& key, uint64_t arrived, size_t expected) const {
    if (arrived == expected) return;
    std::string what = key.channel == static_cast<uint32_t>(Channel::User)
                           ? "a message with tag " + std::to_string(key.tag)
                           : "a collective message";
    throwError(trncclInvalidUsage, socket_.describePeer() + " sent " + what + " of " +
                                       std::to_string(arrived) + " bytes where " +
                                       std::to_string(expected) + " were expected");
  }

  Socket socket_;
  FrameHeader header_{};
  size_t headerBytes_ = 0;
  std::vector<char> payload_;
  size_t payloadBytes_ = 0;
  std::map<MessageKey, std::deque<std::vector<char>>> parked_;
};

}  // namespace

// ---- Unique id --------------------------------------------------------------

trncclUniqueId encodeUniqueId(const RendezvousInfo& info) {
  IdLayout layout{};
  layout.magic = kIdMagic;
  layout.version = kProtocolVersion;
  layout.secret = info.secret;
  layout.root = info.root.toWire();
  trncclUniqueId id;
  std::memcpy(&id, &layout, sizeof(id));
  return id;
}

RendezvousInfo decodeUniqueId(const trncclUniqueId& id) {
  IdLayout layout;
  std::memcpy(&layout, &id, sizeof(layout));
  if (layout.magic != kIdMagic)
    throwInvalidArgument("id", "is not a unique id made by trncclGetUniqueId (bad magic)");
  if (layout.version != kProtocolVersion) {
    throwInvalidArgument("id", "has version " + std::to_string(layout.version) +
                                   "; this library speaks version " +
                                   std::to_string(kProtocolVersion));
  }
  bool paddingClear = layout.reserved == 0 && layout.root.reserved == 0 &&
                      std::all_of(std::begin(layout.unused), std::end(layout.unused),
                                  [](uint8_t byte) { return byte == 0; });
  if (!paddingClear) throwInvalidArgument("id", "is corrupted (non-zero padding)");
  auto root = SocketAddress::fromWire(layout.root);
  if (!root || root->port() == 0) throwInvalidArgument("id", "has no valid root address");
  if (layout.secret == Secret{}) throwInvalidArgument("id", "has no secret");
  return {*root, layout.secret};
}

trncclUniqueId createUniqueId(milliseconds timeout) {
  if (timeout <= milliseconds::zero())
    throwInvalidArgument("timeout", "must be positive, not " + std::to_string(timeout.count()));
  Socket listener = Socket::listen(selectInterface().address);
  RendezvousInfo info{listener.localAddress(), randomSecret()};
  auto root = std::make_unique<RendezvousRoot>(std::move(listener), info.secret, timeout);
  // Detached: the root owns all it uses, ends by itself, and never holds up exit.
  std::thread([root = std::move(root)] { root->run(); }).detach();
  return encodeUniqueId(info);
}

// ---- Bootstrap --------------------------------------------------------------

class Bootstrap::Impl {
 public:
  Impl(int rank, int nranks, const Secret& secret, Socket listener,
       std::vector<SocketAddress> peers, milliseconds timeout, const std::atomic<bool>* abortFlag)
      : rank_(rank),
        nranks_(nranks),
        secret_(secret),
        listener_(std::move(listener)),
        address_(listener_.localAddress().toString()),
        peers_(std::move(peers)),
        outgoing_(nranks),
        incoming_(nranks),
        timeout_(timeout),
        abortFlag_(abortFlag) {}

  int rank() const { return rank_; }
  int size() const { return nranks_; }
  const std::string& address() const { return address_; }

  // Ring: in step s, rank r passes block r-s to r+1 and gets block r-s-1 from r-1.
  void allGather(void* data, size_t bytes) {
    Deadline deadline(timeout_, abortFlag_);
    char* blocks = static_cast<char*>(data);
    int next = (rank_ + 1) % nranks_;
    int prev = (rank_ + nranks_ - 1) % nranks_;
    for (int step = 0; step < nranks_ - 1; ++step) {
      int sendBlock = (rank_ - step + nranks_) % nranks_;
      int recvBlock = (rank_ - step - 1 + 2 * nranks_) % nranks_;
      Outgoing out(next, Channel::Collective, 0, blocks + sendBlock * bytes, bytes);
      Expected in{
          prev, {static_cast<uint32_t>(Channel::Collective), 0}, blocks + recvBlock * bytes, bytes};
      transfer(&out, &in, deadline);
    }
  }

  void broadcast(void* data, size_t bytes, int root) {
    Deadline deadline(timeout_, abortFlag_);
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

  void send(int peer, int tag, const void* data, size_t bytes) {
    Deadline deadline(timeout_, abortFlag_);
    Outgoing out(peer, Channel::User, tag, data, bytes);
    transfer(&out, nullptr, deadline);
  }

  void recv(int peer, int tag, void* data, size_t bytes) {
    Deadline deadline(timeout_, abortFlag_);
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
  void transfer(Outgoing* out, Expected* in, const Deadline& deadline) {
    Socket* outSocket = out ? &linkTo(out->peer, deadline) : nullptr;
    while (true) {
      if (out && !out->done())
        out->sent +=
            outSocket->sendSome(out->frame.data() + out->sent, out->frame.size() - out->sent);
      if (in && !in->done && incoming_[in->peer]) receive(*in);
      if ((!out || out->done()) && (!in || in->done)) return;

      std::vector<pollfd> fds{{listener_.fd(), POLLIN, 0}};
      for (Greeting& greeting : greetings_) fds.push_back({greeting.socket().fd(), POLLIN, 0});
      if (out && !out->done()) fds.push_back({outSocket->fd(), POLLOUT, 0});
      if (in && !in->done && incoming_[in->peer])
        fds.push_back({incoming_[in->peer]->socket().fd(), POLLIN, 0});
      if (!pollFor(fds, deadline)) deadline.throwTimeout(describeWait(out, in));

      for (size_t i = greetings_.size(); i-- > 0;) {
        if (fds[1 + i].revents != 0) advanceGreeting(i);
      }
      if (fds[0].revents != 0) {
        while (auto socket = listener_.tryAccept())
          greetings_.emplace_back(std::move(*socket), sizeof(Hello));
      }
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
      text += incoming_[in->peer] ? "waiting for a message from rank "
                                  : "waiting for a connection from rank ";
      text += std::to_string(in->peer);
    }
    return text;
  }

  // The connection this rank sends to `peer` on, opened on first use.
  Socket& linkTo(int peer, const Deadline& deadline) {
    if (!outgoing_[peer]) {
      // Every rank listened before it registered: refused means it is gone.
      Socket socket = Socket::connect(peers_[peer], deadline, "rank " + std::to_string(peer),
                                      Socket::WhenRefused::Fail);
      Hello hello = makeHello(Purpose::PeerLink, secret_, rank_, nranks_);
      socket.sendAll(&hello, sizeof(hello), deadline);
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
      if (hello.nranks != nranks_ || hello.rank < 0 || hello.rank >= nranks_ ||
          hello.rank == rank_) {
        greeting.refuse("claims to be rank " + std::to_string(hello.rank) + " of " +
                        std::to_string(hello.nranks));
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
  Secret secret_;
  Socket listener_;
  std::string address_;
  std::vector<SocketAddress> peers_;
  std::vector<std::optional<Socket>> outgoing_;
  std::vector<std::unique_ptr<Inbox>> incoming_;
  std::vector<Greeting> greetings_;  // accepted, not yet identified
  milliseconds timeout_;
  const std::atomic<bool>* abortFlag_;
};

std::unique_ptr<Bootstrap> Bootstrap::connect(const trncclUniqueId& id, int rank, int nranks,
                                              milliseconds timeout,
                                              const std::atomic<bool>* abortFlag) {
  RendezvousInfo info = decodeUniqueId(id);
  if (nranks < 1)
    throwInvalidArgument("nranks", "must be at least 1, not " + std::to_string(nranks));
  if (rank < 0 || rank >= nranks) {
    throwInvalidArgument(
        "rank", "is " + std::to_string(rank) + ", not in [0, " + std::to_string(nranks) + ")");
  }
  if (timeout <= milliseconds::zero())
    throwInvalidArgument("timeout", "must be positive, not " + std::to_string(timeout.count()));

  return withContext(rankContext(rank, nranks, "connect"), [&] {
    Deadline deadline(timeout, abortFlag);
    Socket listener = Socket::listen(selectInterface(info.root.family()).address);
    std::vector<SocketAddress> peers =
        joinRendezvous(info, rank, nranks, listener.localAddress(), deadline);
    TRNCCL_INFO("bootstrap rank %d/%d listening at %s joined %s", rank, nranks,
                listener.localAddress().toString().c_str(), info.root.toString().c_str());
    return std::unique_ptr<Bootstrap>(new Bootstrap(std::make_unique<Impl>(
        rank, nranks, info.secret, std::move(listener), std::move(peers), timeout, abortFlag)));
  });
}

Bootstrap::Bootstrap(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Bootstrap::~Bootstrap() = default;

int Bootstrap::rank() const { return impl_->rank(); }
int Bootstrap::size() const { return impl_->size(); }
std::string Bootstrap::address() const { return impl_->address(); }

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
    throwInvalidArgument(
        "root", "is " + std::to_string(root) + ", not a rank of " + std::to_string(size()));
  withContext(rankContext(rank(), size(), "broadcast"),
              [&] { impl_->broadcast(data, bytes, root); });
}

namespace {
void checkPeer(int peer, int rank, int nranks) {
  if (peer < 0 || peer >= nranks || peer == rank) {
    throwInvalidArgument(
        "peer", "is " + std::to_string(peer) + ", not another rank of " + std::to_string(nranks));
  }
}
}  // namespace

void Bootstrap::send(int peer, int tag, const void* data, size_t bytes) {
  checkPeer(peer, rank(), size());
  if (data == nullptr && bytes > 0) throwInvalidArgument("data", "is NULL");
  withContext(rankContext(rank(), size(), "send"), [&] { impl_->send(peer, tag, data, bytes); });
}

void Bootstrap::recv(int peer, int tag, void* data, size_t bytes) {
  checkPeer(peer, rank(), size());
  if (data == nullptr && bytes > 0) throwInvalidArgument("data", "is NULL");
  withContext(rankContext(rank(), size(), "recv"), [&] { impl_->recv(peer, tag, data, bytes); });
}

}  // namespace trnccl::core
