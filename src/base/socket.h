// TCP sockets for the bootstrap and the TCP transport: addresses, interface
// selection (TRNCCL_SOCKET_IFNAME, NCCL syntax), and non-blocking sockets whose
// every wait goes through poll() bounded by a Deadline that also watches an
// abort flag. Errors are trnccl::Error: Timeout, RemoteError (the peer closed
// or reset the connection), SystemError (with the address), InvalidUsage
// ("communicator aborted").
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/tls.h"

namespace trnccl::net {

// An address in the fixed-size, pointer-free form that unique ids and rank
// tables carry between processes.
struct WireAddress {
  uint8_t ipVersion;  // 4 or 6
  uint8_t reserved;
  uint16_t port;
  uint32_t scopeId;  // IPv6 link-local only
  uint8_t ip[16];
};
static_assert(sizeof(WireAddress) == 24);

// An IPv4 or IPv6 address with a port; prints as "1.2.3.4:5" or "[::1]:5".
class SocketAddress {
 public:
  SocketAddress() = default;
  SocketAddress(const sockaddr* address, socklen_t length);
  // Parses "1.2.3.4:5", "[::1]:5" or "[fe80::1%2]:5"; throws InvalidArgument.
  static SocketAddress parse(std::string_view text);
  // nullopt for a malformed wire address.
  static std::optional<SocketAddress> fromWire(const WireAddress& wire);

  int family() const { return storage_.ss_family; }
  uint16_t port() const;
  SocketAddress withPort(uint16_t port) const;
  bool isLinkLocal() const;
  std::string toString() const;
  // Without the port: "1.2.3.4", "::1".
  std::string hostText() const;
  WireAddress toWire() const;

  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage_); }
  socklen_t length() const { return length_; }

 private:
  sockaddr_storage storage_{};
  socklen_t length_ = 0;
};

struct Interface {
  std::string name;
  SocketAddress address;  // port 0
  bool loopback = false;
};

// Every up interface with an IPv4 or IPv6 address, one entry per address.
std::vector<Interface> listInterfaces();

// The name of the up interface holding `address` (its port ignored), e.g.
// "eth0"; the address itself when no interface holds it.
std::string interfaceHolding(const SocketAddress& address);

// The names in `names` that NCCL_SOCKET_IFNAME-style `spec` selects, in their
// order: "eth,ib" prefixes, "^docker,lo" all but those prefixes, "=eth0" exact
// names, "^=eth0" all but exact names.
std::vector<std::string> matchInterfaces(std::string_view spec, const std::vector<std::string>& names);

// The interface to listen on: TRNCCL_SOCKET_IFNAME, or loopback when unset.
// Among its addresses, `preferredFamily` first, then any routable one, IPv6
// link-local last. Throws InvalidArgument naming the variable, its value and
// the interfaces there are when nothing matches.
Interface selectInterface(int preferredFamily = AF_INET);
// Every interface TRNCCL_SOCKET_IFNAME selects, with its best address as
// above, in the order getifaddrs lists them: one per rail of a transport
// that spreads its connections over interfaces. Throws as above.
std::vector<Interface> selectInterfaces(int preferredFamily = AF_INET);

// When a blocking operation must give up: after a timeout, or as soon as
// `*abortFlag` becomes true (checked at least every kAbortCheckInterval).
class Deadline {
 public:
  static constexpr std::chrono::milliseconds kAbortCheckInterval{100};

  explicit Deadline(std::chrono::milliseconds timeout, const std::atomic<bool>* abortFlag = nullptr);
  std::chrono::steady_clock::duration remaining() const;
  bool expired() const { return remaining() <= std::chrono::steady_clock::duration::zero(); }
  // Throws InvalidUsage "communicator aborted".
  void throwIfAborted() const;
  // Throws Timeout "timed out after <timeout> ms <doing>".
  [[noreturn]] void throwTimeout(const std::string& doing) const;

 private:
  std::chrono::milliseconds timeout_;
  std::chrono::steady_clock::time_point end_;
  const std::atomic<bool>* abortFlag_;
};

// One poll() over `fds` for at most min(maxWait, kAbortCheckInterval, what is
// left). Returns false, polling nothing, when the deadline has passed; throws
// on abort (before and after waiting).
bool pollFor(std::span<pollfd> fds, const Deadline& deadline,
             std::chrono::milliseconds maxWait = Deadline::kAbortCheckInterval);

// A connected or listening TCP socket (non-blocking, close-on-exec, TCP_NODELAY
// when connected). Move-only; closes on destruction. After startTls() every
// byte goes through TLS (base/tls.h), the handshake within the first send or
// receive; poll for pollEvents(), and read on while hasBuffered().
class Socket {
 public:
  Socket() = default;
  Socket(Socket&& other) noexcept;
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();

  // Listens on `address`; port 0 picks a free port (see localAddress()).
  static Socket listen(const SocketAddress& address);
  // Retry: the listener may not be up yet. Fail: it was, so the peer is gone.
  enum class WhenRefused { Retry, Fail };
  // Connects to `peerName` (for messages, e.g. "rank 3") at `address`.
  static Socket connect(const SocketAddress& address, const Deadline& deadline, std::string peerName = {},
                        WhenRefused whenRefused = WhenRefused::Retry);

  // A pending connection, or nullopt when none is waiting.
  std::optional<Socket> tryAccept();
  Socket accept(const Deadline& deadline);

  void sendAll(const void* data, size_t bytes, const Deadline& deadline);
  void recvAll(void* data, size_t bytes, const Deadline& deadline);
  // Move what the kernel takes / has now; 0 when it would block. A closed or
  // reset connection is a RemoteError naming the peer.
  size_t sendSome(const void* data, size_t bytes);
  // sendSome of several parts in one system call (a header and its payload).
  size_t sendSomeParts(std::span<iovec> parts);
  size_t recvSome(void* data, size_t bytes);

  // Encrypts and authenticates this connected socket from now on; `role`:
  // Client for the end that connected. Null `context`: stays plaintext.
  void startTls(std::shared_ptr<const TlsContext> context, TlsRole role);
  bool encrypted() const { return tls_ != nullptr; }
  // The poll() events to wait for when the caller wants `usual` (a TLS
  // handshake may need the other direction first).
  short pollEvents(short usual) const;
  // Received bytes that recvSome() returns though the socket is not readable.
  bool hasBuffered() const;
  // Whether a RemoteError came from TLS itself (a failed handshake or a
  // record that failed authentication), not from the connection closing.
  bool tlsFailed() const;

  int fd() const { return fd_; }
  SocketAddress localAddress() const;
  const SocketAddress& peerAddress() const { return peer_; }
  // Names the peer in error messages, e.g. "rank 3" -> "rank 3 (127.0.0.1:4000)".
  void setPeerName(std::string name) { peerName_ = std::move(name); }
  std::string describePeer() const;

 private:
  Socket(int fd, SocketAddress peer) : fd_(fd), peer_(peer) {}
  void close();

  int fd_ = -1;
  SocketAddress peer_;
  std::string peerName_;
  std::unique_ptr<TlsSession> tls_;
};

}  // namespace trnccl::net
