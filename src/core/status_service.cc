#include "core/status_service.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "base/error.h"
#include "base/log.h"
#include "core/bootstrap_protocol.h"

namespace trnccl::core {

using namespace wire;

namespace {

// How long a query may ask the root to wait for the ranks, and to hand
// its answer over.
constexpr milliseconds kLongestWait{10000};
constexpr milliseconds kSendLimit{2000};

// A rank's answer, read without blocking as it comes.
class AnswerReader {
 public:
  // Reads what has arrived; true once an answer is whole (then take() it).
  // Throws when the rank closed its connection or sent nonsense.
  bool read(net::Socket& socket) {
    while (true) {
      if (headerBytes_ < sizeof(header_)) {
        const size_t got =
            socket.recvSome(reinterpret_cast<char*>(&header_) + headerBytes_, sizeof(header_) - headerBytes_);
        if (got == 0) return false;
        headerBytes_ += got;
        if (headerBytes_ < sizeof(header_)) continue;
        if (header_.bytes > kMaxStatusBytes)
          throwError(trncclRemoteError, "an oversized status answer from " + socket.describePeer());
        payload_.assign(header_.bytes, '\0');
        payloadBytes_ = 0;
      } else if (payloadBytes_ < payload_.size()) {
        const size_t got = socket.recvSome(payload_.data() + payloadBytes_, payload_.size() - payloadBytes_);
        if (got == 0) return false;
        payloadBytes_ += got;
      }
      if (headerBytes_ == sizeof(header_) && payloadBytes_ == payload_.size()) return true;
    }
  }

  // The whole answer: which query it answers, and its JSON text.
  std::pair<uint64_t, std::string> take() {
    headerBytes_ = 0;
    payloadBytes_ = 0;
    return {header_.query, std::move(payload_)};
  }

 private:
  StatusAnswer header_{};
  size_t headerBytes_ = 0;
  std::string payload_;
  size_t payloadBytes_ = 0;
};

// Sends a reply the way the root answers ranks: a ReplyHeader, then its bytes.
void reply(net::Socket& socket, trncclResult_t code, const std::string& body, milliseconds limit) {
  ReplyHeader header{code, static_cast<uint32_t>(body.size())};
  net::Deadline deadline(limit);
  socket.sendAll(&header, sizeof(header), deadline);
  socket.sendAll(body.data(), body.size(), deadline);
}

}  // namespace

class StatusService::Impl {
 public:
  Impl(net::Socket listener, const Secret& secret, std::shared_ptr<const net::TlsContext> tls,
       std::vector<Member> members)
      : listener_(std::move(listener)),
        address_(listener_.localAddress().toString()),
        owner_("bootstrap root " + address_),
        secret_(secret),
        tls_(std::move(tls)),
        nranks_(static_cast<int>(members.size())) {
    addressOf_.resize(nranks_);
    for (Member& member : members) {
      addressOf_[member.rank] = member.listenAddress;
      members_.push_back({std::move(member), {}});
    }
  }

  void run() {
    TRNCCL_INFO("bootstrap root %s: answering status queries while the %d ranks are connected", address_.c_str(),
                nranks_);
    while (!members_.empty()) {
      std::vector<pollfd> fds{{listener_.fd(), POLLIN, 0}};
      for (Greeting& greeting : greetings_)
        fds.push_back({greeting.socket().fd(), greeting.socket().pollEvents(POLLIN), 0});
      for (Linked& member : members_) fds.push_back({member.link.fd(), member.link.pollEvents(POLLIN), 0});
      if (::poll(fds.data(), fds.size(), pollMs()) < 0 && errno != EINTR)
        throwError(trncclSystemError, std::string("poll: ") + std::strerror(errno));

      const size_t greetingCount = greetings_.size();
      for (size_t i = members_.size(); i-- > 0;)
        if (fds[1 + greetingCount + i].revents != 0) readMember(i);
      for (size_t i = greetingCount; i-- > 0;)
        if (fds[1 + i].revents != 0) advanceGreeting(i);
      dropOverdue(greetings_, owner_);
      if (fds[0].revents != 0) acceptGreetings(listener_, tls_, sizeof(Hello) + sizeof(Registration), greetings_);
      if (query_ && (query_->answers.size() == members_.size() || Clock::now() >= query_->until)) finishQuery();
    }
    TRNCCL_INFO("bootstrap root %s done: every rank left", address_.c_str());
  }

 private:
  struct Linked : Member {
    AnswerReader reader;
  };

  // One query to every rank; clients that come meanwhile share its answer.
  struct Query {
    uint64_t number;
    Clock::time_point until;
    milliseconds waited;
    std::vector<net::Socket> clients;
    std::map<int, nlohmann::json> answers;  // by rank
  };

  // Until the query's answers are due or a greeting is; with neither, sleep
  // until someone comes.
  int pollMs() const {
    Clock::time_point wake = firstDropAt(greetings_);
    if (query_) wake = std::min(wake, query_->until);
    if (wake == Clock::time_point::max()) return -1;
    const auto left = std::chrono::ceil<milliseconds>(wake - Clock::now()).count();
    return static_cast<int>(std::clamp<int64_t>(left, 0, kLongestWait.count()));
  }

  void readMember(size_t index) {
    Linked& member = members_[index];
    try {
      while (member.reader.read(member.link)) {
        auto [number, text] = member.reader.take();
        if (!query_ || number != query_->number) continue;  // late: a query that has been answered
        nlohmann::json answer = nlohmann::json::parse(text, nullptr, false);
        if (answer.is_discarded()) throwError(trncclRemoteError, "a malformed status answer");
        query_->answers[member.rank] = std::move(answer);
      }
    } catch (const Error& e) {
      // Closed: the rank destroyed its communicator, or its process ended.
      TRNCCL_INFO("bootstrap root %s: rank %d left (%s)", address_.c_str(), member.rank, e.what());
      departed_.push_back(member.rank);
      members_.erase(members_.begin() + static_cast<ptrdiff_t>(index));
    }
  }

  void advanceGreeting(size_t index) {
    Greeting& greeting = greetings_[index];
    const Greeting::Status status = greeting.advance(secret_, Purpose::Status);
    if (status == Greeting::Status::Incomplete) return;
    if (status == Greeting::Status::Complete) {
      join(std::move(greeting.socket()), greeting.registration().replyWithinMs);
    } else {
      TRNCCL_WARN("bootstrap root %s refused a status query from %s: %s", address_.c_str(),
                  greeting.socket().peerAddress().toString().c_str(), greeting.refusal().c_str());
      // Best effort: a client that speaks the protocol learns why.
      try {
        reply(greeting.socket(), trncclInvalidUsage, "refused the query: " + greeting.refusal(), milliseconds(200));
      } catch (const Error&) {
      }
    }
    greetings_.erase(greetings_.begin() + static_cast<ptrdiff_t>(index));
  }

  void join(net::Socket client, uint64_t waitMs) {
    if (query_) return query_->clients.push_back(std::move(client));
    const milliseconds wait(std::clamp<uint64_t>(waitMs, 1, kLongestWait.count()));
    query_ = Query{++queries_, Clock::now() + wait, wait, {}, {}};
    query_->clients.push_back(std::move(client));
    const StatusRequest request{kStatusMagic, query_->number};
    for (size_t i = members_.size(); i-- > 0;) {
      try {
        members_[i].link.sendAll(&request, sizeof(request), net::Deadline(kSendLimit));
      } catch (const Error&) {
        departed_.push_back(members_[i].rank);
        members_.erase(members_.begin() + static_cast<ptrdiff_t>(i));
      }
    }
  }

  void finishQuery() {
    nlohmann::json answer;
    answer["format"] = "trnccl-status";
    answer["version"] = 1;
    answer["root"] = address_;
    answer["nranks"] = nranks_;
    answer["waited_ms"] = query_->waited.count();
    answer["ranks"] = nlohmann::json::array();
    for (int rank = 0; rank < nranks_; ++rank) {
      nlohmann::json entry{{"rank", rank}, {"address", addressOf_[rank].hostText()}};
      auto found = query_->answers.find(rank);
      entry["answered"] = found != query_->answers.end();
      if (found != query_->answers.end())
        entry["status"] = std::move(found->second);
      else if (std::find(departed_.begin(), departed_.end(), rank) != departed_.end())
        entry["reason"] = "left: closed its connection to the root";
      else
        entry["reason"] = "no answer within " + std::to_string(query_->waited.count()) + " ms";
      answer["ranks"].push_back(std::move(entry));
    }
    const std::string text = answer.dump();
    for (net::Socket& client : query_->clients) {
      try {
        reply(client, trncclSuccess, text, kSendLimit);
      } catch (const Error& e) {
        TRNCCL_WARN("bootstrap root %s could not answer a status query: %s", address_.c_str(), e.what());
      }
    }
    query_.reset();
  }

  net::Socket listener_;
  std::string address_;
  std::string owner_;  // for the greetings it drops
  Secret secret_;
  std::shared_ptr<const net::TlsContext> tls_;
  int nranks_;
  std::vector<net::SocketAddress> addressOf_;  // by rank
  std::vector<Linked> members_;                // still connected
  std::vector<int> departed_;
  std::vector<Greeting> greetings_;  // accepted, not yet identified
  std::optional<Query> query_;
  uint64_t queries_ = 0;
};

StatusService::StatusService(net::Socket listener, const Secret& secret, std::shared_ptr<const net::TlsContext> tls,
                             std::vector<Member> members)
    : impl_(std::make_unique<Impl>(std::move(listener), secret, std::move(tls), std::move(members))) {}

StatusService::~StatusService() = default;

void StatusService::run() { impl_->run(); }

}  // namespace trnccl::core
