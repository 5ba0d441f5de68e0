// The bootstrap's wire protocol: the unique id's layout, the greeting that
// opens every connection (checked without blocking, so garbage or a silent
// client never holds anyone up), and the frames ranks exchange. All parties
// run the same build on the same kind of host.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "base/error.h"
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

struct IdLayout {
  uint64_t magic;
  uint32_t version;
  uint32_t reserved;
  Secret secret;
  net::WireAddress root;
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
  net::WireAddress listenAddress;
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
// that a garbage or silent client never holds anyone up.
class Greeting {
 public:
  using Status = GreetingStatus;

  Greeting(net::Socket socket, size_t size) : socket_(std::move(socket)), bytes_(size) {}

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
    return judgeGreeting({bytes_.data(), received_}, bytes_.size(), secret, purpose, refusal_);
  }

  Status refuse(std::string reason) {
    refusal_ = std::move(reason);
    return Status::Refused;
  }
  const std::string& refusal() const { return refusal_; }

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
};

}  // namespace trnccl::core::wire
