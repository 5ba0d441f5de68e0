// The bootstrap's wire protocol: the unique id's layout, the greeting that
// opens every connection (checked without blocking, so garbage or a silent
// client never holds anyone up), and the frames ranks exchange. All parties
// run the same build on the same kind of host.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/greeting_limit.h"
#include "base/secret.h"
#include "base/socket.h"
#include "trnccl/trnccl.h"

namespace trnccl::core::wire {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using trnccl::Secret;

inline constexpr uint64_t kIdMagic = 0x44494c43434e5254;     // "TRNCCLID"
inline constexpr uint64_t kHelloMagic = 0x4f4c4c45484e5254;  // "TRNHELLO"
inline constexpr uint32_t kProtocolVersion = 1;
inline constexpr size_t kMaxErrorMessage = 4096;
inline constexpr uint64_t kMaxFrameBytes = uint64_t{1} << 30;

// ---- Wire formats (all parties run the same build on the same kind of host) --

inline constexpr uint32_t kIdEncrypted = 1;  // IdLayout::flags

struct IdLayout {
  uint64_t magic;
  uint32_t version;
  uint32_t flags;  // kIdEncrypted
  Secret secret;
  net::WireAddress root;
  uint8_t unused[72];
};
static_assert(sizeof(IdLayout) == sizeof(trncclUniqueId));

// Status: trnccl-top asking the root of a running job (core/status_service.h).
enum class Purpose : uint32_t { JoinRoot = 1, PeerLink = 2, Status = 3 };

// The first bytes on every connection.
struct Hello {
  uint64_t magic;
  uint32_t version;
  uint32_t purpose;
  Secret secret;
  int32_t rank;
  int32_t nranks;
};

// Follows the Hello on a connection to the root. A status query sends one
// too (no address), so that the root reads one greeting size.
struct Registration {
  net::WireAddress listenAddress;
  uint64_t replyWithinMs;  // when the rank will stop waiting for the table (a query: for the ranks)
};

// The root's answer: trncclSuccess and nranks WireAddresses, or an error code
// and its message.
struct ReplyHeader {
  int32_t code;
  uint32_t bytes;
};

// After the rendezvous, the root asks each rank for its status over the
// connection the rank registered on; the rank answers with a StatusAnswer
// and its JSON. Numbered, so that a late answer to an earlier query (a rank
// that was stopped) is told apart.
inline constexpr uint64_t kStatusMagic = 0x5441545354524e54;  // "TNRTSTAT"
inline constexpr uint64_t kMaxStatusBytes = uint64_t{64} << 20;
struct StatusRequest {
  uint64_t magic;
  uint64_t query;
};
struct StatusAnswer {
  uint64_t query;
  uint64_t bytes;
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

Hello makeHello(Purpose purpose, const Secret& secret, int rank, int nranks);
std::string rankContext(int rank, int nranks, const char* operation);

template <class Body>
auto withContext(const std::string& context, Body&& body) {
  try {
    return body();
  } catch (const Error& e) {
    throw Error(e.code(), context + e.what());
  }
}

// What the first bytes.size() bytes of a `size`-byte greeting (a Hello, plus
// a Registration on connections to the root) say, judged as early as
// possible: garbage is refused at its first bytes. Sets `refusal` when
// Refused. Pure, so the fuzzers can feed it raw bytes.
enum class GreetingStatus { Incomplete, Complete, Refused };
GreetingStatus judgeGreeting(std::span<const char> bytes, size_t size, const Secret& secret, Purpose purpose,
                             std::string& refusal);

// Why the root cannot admit a rank that sent this greeting; empty if it can.
std::string registrationProblem(const Hello& hello, const Registration& registration);

// Whether a frame header from a peer names a known channel and a size the
// receiver may allocate.
bool frameHeaderValid(const FrameHeader& header);

// Whether the root's reply to a rank of `nranks` ranks is well formed:
// success with the table, or a known failure with a bounded message.
bool replyHeaderValid(const ReplyHeader& reply, int nranks);

// The fixed-size greeting that opens a connection, read without blocking so
// that a garbage or silent client never holds anyone up, and dropped when it
// is not whole within net::greetingLimit() so that it holds no descriptor
// either.
class Greeting {
 public:
  using Status = GreetingStatus;

  Greeting(net::Socket socket, size_t size)
      : socket_(std::move(socket)), bytes_(size), limit_(net::greetingLimit()), dropAt_(accepted_ + limit_) {}

  Status advance(const Secret& secret, Purpose purpose) {
    try {
      while (received_ < bytes_.size()) {
        size_t got = socket_.recvSome(bytes_.data() + received_, bytes_.size() - received_);
        if (got == 0) break;
        received_ += got;
      }
    } catch (const Error& e) {
      return refuse(e.code() == trncclRemoteError && !socket_.tlsFailed() ? "closed before identifying itself"
                                                                          : e.what());
    }
    return judgeGreeting({bytes_.data(), received_}, bytes_.size(), secret, purpose, refusal_);
  }

  Status refuse(std::string reason) {
    refusal_ = std::move(reason);
    return Status::Refused;
  }
  const std::string& refusal() const { return refusal_; }

  bool overdue(Clock::time_point now) const { return now >= dropAt_; }
  Clock::time_point dropAt() const { return dropAt_; }
  // Its owner was away `away` (a rank between bootstrap calls, not
  // reading): that time does not count, up to one more limit in all, so a
  // peer's TLS handshake that needed the owner to go on can finish.
  void ownerWasAway(Clock::duration away) {
    const Clock::duration excused = std::min(away, graceLeft_);
    dropAt_ += excused;
    graceLeft_ -= excused;
  }
  // For the log: how much of it came, and since when.
  std::string progress() const {
    const auto waited = std::chrono::duration_cast<milliseconds>(Clock::now() - accepted_).count();
    return std::to_string(received_) + " of its " + std::to_string(bytes_.size()) + " greeting bytes in " +
           std::to_string(waited) + " ms (the limit is " + std::to_string(limit_.count()) + " ms)";
  }

  Hello hello() const { return read<Hello>(0); }
  Registration registration() const { return read<Registration>(sizeof(Hello)); }
  net::Socket& socket() { return socket_; }

 private:
  template <class T>
  T read(size_t offset) const {
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;
  }

  net::Socket socket_;
  std::vector<char> bytes_;
  size_t received_ = 0;
  std::string refusal_;
  Clock::time_point accepted_ = Clock::now();
  milliseconds limit_;
  Clock::time_point dropAt_;
  Clock::duration graceLeft_ = limit_;
};

// Takes every connection waiting on `listener` as a greeting of `bytes`, its
// TLS (where `tls` is set) started on the server's side.
void acceptGreetings(net::Socket& listener, const std::shared_ptr<const net::TlsContext>& tls, size_t bytes,
                     std::vector<Greeting>& greetings);
// Closes the greetings that are overdue, logging each once: "<owner>
// dropped a connection from <its address>: ..." (`owner` e.g. "bootstrap
// root 10.0.0.1:5000").
void dropOverdue(std::vector<Greeting>& greetings, const std::string& owner);
// Closes every greeting, logging each once: its owner stops listening.
void dropAll(std::vector<Greeting>& greetings, const std::string& owner, const char* why);
// The earliest time one of `greetings` falls due (max when there is none).
Clock::time_point firstDropAt(const std::vector<Greeting>& greetings);

}  // namespace trnccl::core::wire
