#include "core/rendezvous.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "base/encryption.h"
#include "base/error.h"
#include "base/log.h"
#include "base/rank_list.h"
#include "base/settings.h"
#include "core/bootstrap_protocol.h"
#include "core/status_service.h"

namespace trnccl::core {

using namespace wire;

namespace {

// ---- The rendezvous root ----------------------------------------------------

// Serves one unique id on a thread of its own: admits ranks that present the
// secret, sends every rank the table of listen addresses once all nranks are
// there, then answers status queries (trnccl-top) until every rank has left,
// and ends. A root on a fixed port (TRNCCL_COMM_ID) ends at once instead: the
// job's next communicator needs the port. A failure (disagreeing ranks, a
// rank that left, a timeout) is sent to every rank that arrived, and to any
// that still comes, so no rank waits in vain.
class RendezvousRoot {
 public:
  RendezvousRoot(net::Socket listener, const Secret& secret, std::shared_ptr<const net::TlsContext> tls,
                 milliseconds timeout, bool servesStatus)
      : servesStatus_(servesStatus),
        listener_(std::move(listener)),
        address_(listener_.localAddress().toString()),
        owner_("bootstrap root " + address_),
        secret_(secret),
        tls_(std::move(tls)),
        deadline_(timeout),
        started_(Clock::now()) {}

  void run() noexcept {
    try {
      serve();
      // Ranks are answered; whoever still greets is no rank of this job.
      dropAll(greetings_, owner_, "the rendezvous ended before it identified itself");
      if (servesStatus_ && !failure_ && !members_.empty())
        StatusService(std::move(listener_), secret_, tls_, std::move(members_)).run();
    } catch (const std::exception& e) {
      TRNCCL_WARN("bootstrap root %s failed: %s", address_.c_str(), e.what());
    }
  }

 private:
  struct Arrival {
    net::Socket socket;
    int rank;
    int nranks;
    net::WireAddress listenAddress;
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
      for (Greeting& greeting : greetings_)
        fds.push_back({greeting.socket().fd(), greeting.socket().pollEvents(POLLIN), 0});
      for (Arrival& arrival : arrivals_) fds.push_back({arrival.socket.fd(), POLLIN, 0});
      auto untilReply = replyBy == Clock::time_point::max() ? net::Deadline::kAbortCheckInterval
                                                            : std::chrono::ceil<milliseconds>(replyBy - Clock::now());
      net::pollFor(fds, deadline_, untilReply);

      // An arrival sends nothing after registering: readable means it left.
      for (size_t i = 0; i < arrivals_.size(); ++i) {
        if (fds[1 + greetings_.size() + i].revents != 0) {
          fail(trncclRemoteError, "rank " + std::to_string(arrivals_[i].rank) +
                                      " left before all ranks arrived at the rendezvous root " + address_);
          break;
        }
      }
      for (size_t i = greetings_.size(); i-- > 0;) {
        if (fds[1 + i].revents != 0) advanceGreeting(i);
      }
      // pollFor wakes at least every kAbortCheckInterval, so this runs on time.
      dropOverdue(greetings_, owner_);
      if (fds[0].revents != 0) acceptGreetings(listener_, tls_, sizeof(Hello) + sizeof(Registration), greetings_);
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
    if (std::string problem = registrationProblem(hello, registration); !problem.empty())
      return greeting.refuse(std::move(problem));
    // Answer a little before the rank stops listening, so it learns why.
    auto replyWithin = milliseconds(std::min<uint64_t>(registration.replyWithinMs, 86400000));
    Arrival arrival{std::move(greeting.socket()), hello.rank, hello.nranks, registration.listenAddress,
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
        return fail(trncclInvalidUsage, "ranks disagree on the number of ranks: rank " + std::to_string(other.rank) +
                                            " says " + std::to_string(other.nranks) + ", rank " +
                                            std::to_string(newest.rank) + " says " + std::to_string(newest.nranks));
      }
      if (&other != &newest && other.rank == newest.rank) {
        return fail(trncclInvalidUsage, "rank " + std::to_string(newest.rank) +
                                            " was claimed twice (by the processes listening at " +
                                            net::SocketAddress::fromWire(other.listenAddress)->toString() + " and " +
                                            net::SocketAddress::fromWire(newest.listenAddress)->toString() + ")");
      }
    }
    if (static_cast<int>(arrivals_.size()) == newest.nranks) sendTable();
  }

  void sendTable() {
    std::vector<net::WireAddress> table(arrivals_.size());
    for (const Arrival& arrival : arrivals_) table[arrival.rank] = arrival.listenAddress;
    for (Arrival& arrival : arrivals_) {
      answer(arrival, trncclSuccess, table.data(), table.size() * sizeof(net::WireAddress));
      members_.push_back(
          {std::move(arrival.socket), arrival.rank, *net::SocketAddress::fromWire(arrival.listenAddress)});
    }
    TRNCCL_INFO("bootstrap root %s: all %zu ranks arrived after %lld ms", address_.c_str(), arrivals_.size(),
                static_cast<long long>(elapsed().count()));
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
      fail(trncclTimeout, "gave up after " + std::to_string(elapsed().count()) + " ms: " + missingRanks());
    } else if (!failure_) {
      TRNCCL_WARN("bootstrap root %s gave up after %lld ms: %s", address_.c_str(),
                  static_cast<long long>(elapsed().count()),
                  answered_ == 0 ? "no rank arrived" : "some ranks never arrived");
    }
  }

  std::string missingRanks() const {
    int nranks = arrivals_.front().nranks;
    std::vector<bool> arrived(nranks);
    std::map<std::string, std::vector<int>> ranksByHost;  // where the others came from
    for (const Arrival& arrival : arrivals_) {
      arrived[arrival.rank] = true;
      ranksByHost[net::SocketAddress::fromWire(arrival.listenAddress)->hostText()].push_back(arrival.rank);
    }
    std::vector<int> missing;
    for (int rank = 0; rank < nranks; ++rank)
      if (!arrived[rank]) missing.push_back(rank);
    std::string hosts;
    for (auto& [host, ranks] : ranksByHost) {
      std::sort(ranks.begin(), ranks.end());
      hosts += (hosts.empty() ? "" : ", ") + describeRanks(ranks) + " from " + host;
    }
    return describeRanks(missing) + " never arrived at the rendezvous root " + address_ + " (" +
           std::to_string(arrivals_.size()) + " of " + std::to_string(nranks) + " arrived: " + hosts +
           "; check that the missing ranks were started, with this unique id, and can reach " + address_ + ")";
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

  milliseconds elapsed() const { return std::chrono::duration_cast<milliseconds>(Clock::now() - started_); }

  bool servesStatus_;
  net::Socket listener_;
  std::string address_;
  std::string owner_;  // for the greetings it drops
  Secret secret_;
  std::shared_ptr<const net::TlsContext> tls_;
  net::Deadline deadline_;
  Clock::time_point started_;
  std::vector<Greeting> greetings_;
  std::vector<Arrival> arrivals_;
  std::vector<StatusService::Member> members_;  // answered with the table
  std::optional<Error> failure_;
  int expected_ = 0;
  int answered_ = 0;
};

TRNCCL_SETTING(kCommId, TRNCCL_COMM_ID, settings::text("`host:port`", "unset"),
               "fixed address of rank 0's rendezvous (as `NCCL_COMM_ID`); a port in use is an error naming it");

// The root listens on TRNCCL_COMM_ID ("host:port", for a firewall that opens
// one port) when set, else on an ephemeral port of the chosen interface.
net::Socket listenForRanks(bool& fixedPort) {
  const std::optional<std::string> fixed = settings::readText(kCommId);
  fixedPort = fixed.has_value();
  if (!fixed) return net::Socket::listen(net::selectInterface().address);
  net::SocketAddress address;
  try {
    address = net::SocketAddress::parse(*fixed);
  } catch (const Error& e) {
    throwInvalidArgument(kCommId.name, "is '" + *fixed + "', not an address like 10.0.0.1:5000: " + e.what());
  }
  try {
    return net::Socket::listen(address);
  } catch (const Error& e) {
    throwError(e.code(), "TRNCCL_COMM_ID=" + *fixed + ": the rendezvous root cannot listen there (" + e.what() +
                             "); another job or program may hold the port: choose another, or unset TRNCCL_COMM_ID "
                             "for a free one");
  }
}

TRNCCL_SETTING(kTopFile, TRNCCL_TOP_FILE, settings::text("a file path", "unset"),
               "the process that makes the job's first unique id writes it there, as hex, for `trnccl-top "
               "--id-file` (as NCCL RAS's address setting)");

// The process's first unique id, as hex, into TRNCCL_TOP_FILE (renamed into
// place: trnccl-top never reads half of it). Later ids (splits) leave it.
void publishForTop(const trncclUniqueId& id) {
  static std::atomic<bool> published{false};
  const std::optional<std::string> path = settings::readText(kTopFile);
  if (!path || published.exchange(true)) return;
  const std::string temporary = *path + ".tmp" + std::to_string(getpid());
  FILE* file = std::fopen(temporary.c_str(), "w");
  bool written = file != nullptr;
  for (size_t i = 0; written && i < sizeof(id.internal); ++i)
    written = std::fprintf(file, "%02x", static_cast<unsigned char>(id.internal[i])) == 2;
  if (file) {
    written = std::fputc('\n', file) != EOF && written;
    written = std::fclose(file) == 0 && written;
  }
  if (!written || std::rename(temporary.c_str(), path->c_str()) != 0)
    TRNCCL_WARN("TRNCCL_TOP_FILE=%s: cannot write the unique id there: %s", path->c_str(), std::strerror(errno));
}

}  // namespace

// A rank's side of the rendezvous: register, get the table of listen addresses.
Joined joinRendezvous(const RendezvousInfo& info, int rank, int nranks, const net::SocketAddress& listenAddress,
                      const net::Deadline& deadline) {
  net::Socket root = net::Socket::connect(info.root, deadline, "the rendezvous root");
  root.startTls(jobTls(info), net::TlsRole::Client);
  struct {
    Hello hello;
    Registration registration;
  } join{makeHello(Purpose::JoinRoot, info.secret, rank, nranks),
         {listenAddress.toWire(),
          static_cast<uint64_t>(std::chrono::duration_cast<milliseconds>(deadline.remaining()).count())}};
  static_assert(sizeof(join) == sizeof(Hello) + sizeof(Registration));
  root.sendAll(&join, sizeof(join), deadline);

  ReplyHeader reply{};
  root.recvAll(&reply, sizeof(reply), deadline);
  auto malformed = [&] {
    throwError(trncclRemoteError, "malformed reply from the rendezvous root " + info.root.toString());
  };
  if (!replyHeaderValid(reply, nranks)) malformed();
  if (reply.code == trncclSuccess) {
    std::vector<net::WireAddress> table(nranks);
    root.recvAll(table.data(), reply.bytes, deadline);
    std::vector<net::SocketAddress> peers;
    for (const net::WireAddress& wire : table) {
      auto address = net::SocketAddress::fromWire(wire);
      if (!address) malformed();
      peers.push_back(*address);
    }
    return {std::move(peers), std::move(root)};
  }
  std::string message(reply.bytes, '\0');
  root.recvAll(message.data(), message.size(), deadline);
  throwError(static_cast<trncclResult_t>(reply.code), message);
}

// ---- Unique id --------------------------------------------------------------

trncclUniqueId encodeUniqueId(const RendezvousInfo& info) {
  IdLayout layout{};
  layout.magic = kIdMagic;
  layout.version = kProtocolVersion;
  layout.flags = info.encrypted ? kIdEncrypted : 0;
  layout.secret = info.secret;
  layout.root = info.root.toWire();
  trncclUniqueId id;
  std::memcpy(&id, &layout, sizeof(id));
  return id;
}

RendezvousInfo decodeUniqueId(const trncclUniqueId& id) {
  IdLayout layout;
  std::memcpy(&layout, &id, sizeof(layout));
  if (layout.magic != kIdMagic) throwInvalidArgument("id", "is not a unique id made by trncclGetUniqueId (bad magic)");
  if (layout.version != kProtocolVersion) {
    throwInvalidArgument("id", "has version " + std::to_string(layout.version) + "; this library speaks version " +
                                   std::to_string(kProtocolVersion));
  }
  bool paddingClear =
      (layout.flags & ~kIdEncrypted) == 0 && layout.root.reserved == 0 &&
      std::all_of(std::begin(layout.unused), std::end(layout.unused), [](uint8_t byte) { return byte == 0; });
  if (!paddingClear) throwInvalidArgument("id", "is corrupted (non-zero padding)");
  auto root = net::SocketAddress::fromWire(layout.root);
  if (!root || root->port() == 0) throwInvalidArgument("id", "has no valid root address");
  if (layout.secret == Secret{}) throwInvalidArgument("id", "has no secret");
  return {*root, layout.secret, (layout.flags & kIdEncrypted) != 0};
}

std::shared_ptr<const net::TlsContext> jobTls(const RendezvousInfo& info) {
  std::shared_ptr<const net::TlsContext> tls = encryption::context();
  if (info.encrypted && !tls)
    throwError(trncclInvalidUsage,
               "the unique id was made with encryption on, but this process has no key: call "
               "trncclSetEncryption, or set TRNCCL_ENCRYPTION_KEY_FILE, before creating the communicator");
  if (!info.encrypted && tls)
    throwError(trncclInvalidUsage,
               "this process has encryption on, but the unique id was made without it: set the key in every "
               "process before trncclGetUniqueId");
  return tls;
}

trncclUniqueId createUniqueId(milliseconds timeout) {
  if (timeout <= milliseconds::zero())
    throwInvalidArgument("timeout", "must be positive, not " + std::to_string(timeout.count()));
  std::shared_ptr<const net::TlsContext> tls = encryption::context();
  bool fixedPort = false;
  net::Socket listener = listenForRanks(fixedPort);
  RendezvousInfo info{listener.localAddress(), randomSecret(), tls != nullptr};
  auto root = std::make_unique<RendezvousRoot>(std::move(listener), info.secret, std::move(tls), timeout, !fixedPort);
  // Detached: the root owns all it uses, ends by itself, and never holds up exit.
  std::thread([root = std::move(root)] { root->run(); }).detach();
  const trncclUniqueId id = encodeUniqueId(info);
  publishForTop(id);
  return id;
}

}  // namespace trnccl::core
