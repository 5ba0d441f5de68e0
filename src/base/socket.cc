#include "base/socket.h"

#include <sys/uio.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

#include "base/error.h"
#include "base/log.h"
#include "base/settings.h"
#include "base/tls.h"

namespace trnccl::net {

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

TRNCCL_SETTING(kIfname, TRNCCL_SOCKET_IFNAME, settings::text("NCCL syntax: `eth,ib`, `^docker`, `=eth0`", "loopback"),
               "interface for the bootstrap and tcp (tcp: each interface it selects a rail)");

}  // namespace

// ---- SocketAddress ----------------------------------------------------------

SocketAddress::SocketAddress(const sockaddr* address, socklen_t length) {
  if (address->sa_family == AF_INET && length >= sizeof(sockaddr_in)) {
    length_ = sizeof(sockaddr_in);
  } else if (address->sa_family == AF_INET6 && length >= sizeof(sockaddr_in6)) {
    length_ = sizeof(sockaddr_in6);
  } else {
    throwError(trncclInternalError, "unsupported socket address family " + std::to_string(address->sa_family));
  }
  std::memcpy(&storage_, address, length_);
}

SocketAddress SocketAddress::parse(std::string_view text) {
  auto malformed = [&]() -> SocketAddress {
    throwError(trncclInvalidArgument, "'" + std::string(text) + "' is not an address like 1.2.3.4:5 or [::1]:5");
  };
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == text.size()) return malformed();
  std::string host(text.substr(0, colon));
  std::string portText(text.substr(colon + 1));
  char* end = nullptr;
  unsigned long port = std::strtoul(portText.c_str(), &end, 10);
  if (*end != '\0' || port > 65535 || !std::isdigit(static_cast<unsigned char>(portText[0]))) return malformed();

  sockaddr_storage storage{};
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    if (size_t percent = host.find('%'); percent != std::string::npos) {
      v6->sin6_scope_id = static_cast<uint32_t>(std::strtoul(host.c_str() + percent + 1, &end, 10));
      if (*end != '\0') return malformed();
      host.resize(percent);
    }
    if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) != 1) return malformed();
    return SocketAddress(reinterpret_cast<sockaddr*>(v6), sizeof(sockaddr_in6));
  }
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  v4->sin_family = AF_INET;
  v4->sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) != 1) return malformed();
  return SocketAddress(reinterpret_cast<sockaddr*>(v4), sizeof(sockaddr_in));
}

std::optional<SocketAddress> SocketAddress::fromWire(const WireAddress& wire) {
  sockaddr_storage storage{};
  // Bytes the address does not use must be zero, so that no two wire forms
  // mean the same address and corruption there is caught.
  const bool v4Unused =
      std::all_of(wire.ip + 4, std::end(wire.ip), [](uint8_t b) { return b == 0; }) && wire.scopeId == 0;
  if (wire.reserved != 0) return std::nullopt;
  if (wire.ipVersion == 4 && v4Unused) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
    v4->sin_family = AF_INET;
    v4->sin_port = htons(wire.port);
    std::memcpy(&v4->sin_addr, wire.ip, sizeof(v4->sin_addr));
    return SocketAddress(reinterpret_cast<sockaddr*>(v4), sizeof(sockaddr_in));
  }
  if (wire.ipVersion == 6) {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(wire.port);
    v6->sin6_scope_id = wire.scopeId;
    std::memcpy(&v6->sin6_addr, wire.ip, sizeof(v6->sin6_addr));
    return SocketAddress(reinterpret_cast<sockaddr*>(v6), sizeof(sockaddr_in6));
  }
  return std::nullopt;
}

uint16_t SocketAddress::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage_)->sin_port);
  if (family() == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_port);
  return 0;
}

SocketAddress SocketAddress::withPort(uint16_t port) const {
  SocketAddress copy = *this;
  if (family() == AF_INET) reinterpret_cast<sockaddr_in*>(&copy.storage_)->sin_port = htons(port);
  if (family() == AF_INET6) reinterpret_cast<sockaddr_in6*>(&copy.storage_)->sin6_port = htons(port);
  return copy;
}

bool SocketAddress::isLinkLocal() const {
  return family() == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_addr);
}

std::string SocketAddress::toString() const {
  char ip[INET6_ADDRSTRLEN] = {};
  if (family() == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage_)->sin_addr, ip, sizeof(ip));
    return std::string(ip) + ":" + std::to_string(port());
  }
  if (family() == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&storage_);
    inet_ntop(AF_INET6, &v6->sin6_addr, ip, sizeof(ip));
    std::string scope = v6->sin6_scope_id ? "%" + std::to_string(v6->sin6_scope_id) : "";
    return "[" + std::string(ip) + scope + "]:" + std::to_string(port());
  }
  return "(no address)";
}

std::string SocketAddress::hostText() const {
  const std::string text = toString();
  const size_t colon = text.rfind(':');
  if (family() == AF_INET6) return text.substr(1, colon - 2);  // within the brackets
  return family() == AF_INET ? text.substr(0, colon) : text;
}

WireAddress SocketAddress::toWire() const {
  WireAddress wire{};
  wire.port = port();
  if (family() == AF_INET) {
    wire.ipVersion = 4;
    std::memcpy(wire.ip, &reinterpret_cast<const sockaddr_in*>(&storage_)->sin_addr, 4);
  } else if (family() == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&storage_);
    wire.ipVersion = 6;
    wire.scopeId = v6->sin6_scope_id;
    std::memcpy(wire.ip, &v6->sin6_addr, 16);
  }
  return wire;
}

// ---- Interfaces -------------------------------------------------------------

std::vector<Interface> listInterfaces() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) throwSystemError("getifaddrs", errno);
  std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> owner(list, freeifaddrs);
  std::vector<Interface> interfaces;
  for (ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || !(entry->ifa_flags & IFF_UP)) continue;
    int family = entry->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    socklen_t length = family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    interfaces.push_back(
        {entry->ifa_name, SocketAddress(entry->ifa_addr, length).withPort(0), (entry->ifa_flags & IFF_LOOPBACK) != 0});
  }
  return interfaces;
}

std::string interfaceHolding(const SocketAddress& address) {
  const std::string wanted = address.withPort(0).toString();
  for (const Interface& i : listInterfaces())
    if (i.address.toString() == wanted) return i.name;
  return address.toString();
}

std::vector<std::string> matchInterfaces(std::string_view spec, const std::vector<std::string>& names) {
  bool exclude = spec.starts_with('^');
  if (exclude) spec.remove_prefix(1);
  bool exact = spec.starts_with('=');
  if (exact) spec.remove_prefix(1);

  std::vector<std::string_view> items;
  while (!spec.empty()) {
    size_t comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    if (!item.empty()) items.push_back(item);
    spec.remove_prefix(comma == std::string_view::npos ? spec.size() : comma + 1);
  }

  std::vector<std::string> selected;
  for (const std::string& name : names) {
    bool listed = std::any_of(items.begin(), items.end(), [&](std::string_view item) {
      return exact ? name == item : std::string_view(name).starts_with(item);
    });
    if (listed != exclude) selected.push_back(name);
  }
  return selected;
}

namespace {

// The addresses of the interfaces TRNCCL_SOCKET_IFNAME selects (loopback
// when unset), in getifaddrs order; throws InvalidArgument naming the
// variable, its value and the interfaces there are when there are none.
std::vector<Interface> candidateAddresses() {
  std::vector<Interface> all = listInterfaces();
  std::vector<std::string> names;
  for (const Interface& i : all)
    if (std::find(names.begin(), names.end(), i.name) == names.end()) names.push_back(i.name);

  auto spec = settings::readText(kIfname);
  std::vector<std::string> chosen = spec ? matchInterfaces(*spec, names) : std::vector<std::string>{};
  std::erase_if(all, [&](const Interface& i) {
    return spec ? std::find(chosen.begin(), chosen.end(), i.name) == chosen.end() : !i.loopback;
  });
  if (!all.empty()) return all;

  std::string existing;
  for (const std::string& name : names) existing += (existing.empty() ? "" : ", ") + name;
  if (existing.empty()) existing = "none";
  if (spec) {
    throwError(trncclInvalidArgument, std::string(kIfname.name) + "='" + *spec +
                                          "' matches no interface with an IP address; there are: " + existing);
  }
  throwError(trncclInvalidArgument,
             std::string("no loopback interface with an IP address; set ") + kIfname.name + " to one of: " + existing);
}

// Lower is better: the preferred family, then other routable addresses.
int addressRank(const Interface& i, int preferredFamily) {
  return i.address.family() == preferredFamily ? 0 : i.address.isLinkLocal() ? 2 : 1;
}

}  // namespace

Interface selectInterface(int preferredFamily) {
  const std::vector<Interface> candidates = candidateAddresses();
  const Interface* best = &candidates.front();
  for (const Interface& i : candidates)
    if (addressRank(i, preferredFamily) < addressRank(*best, preferredFamily)) best = &i;
  TRNCCL_TRACE("using interface %s (%s)", best->name.c_str(), best->address.toString().c_str());
  return *best;
}

std::vector<Interface> selectInterfaces(int preferredFamily) {
  std::vector<Interface> best;  // per name
  for (const Interface& i : candidateAddresses()) {
    auto same = std::find_if(best.begin(), best.end(), [&i](const Interface& b) { return b.name == i.name; });
    if (same == best.end())
      best.push_back(i);
    else if (addressRank(i, preferredFamily) < addressRank(*same, preferredFamily))
      *same = i;
  }
  return best;
}

// ---- Deadline ---------------------------------------------------------------

Deadline::Deadline(milliseconds timeout, const std::atomic<bool>* abortFlag)
    : timeout_(timeout), abortFlag_(abortFlag) {
  steady_clock::time_point now = steady_clock::now();
  // Saturate: "wait forever" timeouts must not overflow the clock.
  auto limit = std::chrono::duration_cast<milliseconds>(steady_clock::time_point::max() - now);
  end_ = timeout >= limit ? steady_clock::time_point::max() : now + std::max(timeout, milliseconds::zero());
}

steady_clock::duration Deadline::remaining() const { return end_ - steady_clock::now(); }

void Deadline::throwIfAborted() const {
  if (abortFlag_ != nullptr && abortFlag_->load(std::memory_order_acquire))
    throwError(trncclInvalidUsage, "communicator aborted");
}

void Deadline::throwTimeout(const std::string& doing) const {
  throwError(trncclTimeout, "timed out after " + std::to_string(timeout_.count()) + " ms " + doing);
}

bool pollFor(std::span<pollfd> fds, const Deadline& deadline, milliseconds maxWait) {
  deadline.throwIfAborted();
  steady_clock::duration left = deadline.remaining();
  if (left <= steady_clock::duration::zero()) return false;
  auto wait = std::min({std::chrono::ceil<milliseconds>(left), maxWait, Deadline::kAbortCheckInterval});
  int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::max(wait.count(), int64_t{0})));
  if (ready < 0) {
    if (errno != EINTR) throwSystemError("poll", errno);
    for (pollfd& fd : fds) fd.revents = 0;
  }
  deadline.throwIfAborted();
  return true;
}

// ---- Socket -----------------------------------------------------------------

namespace {

int openSocket(int family) {
  int fd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throwSystemError("socket", errno);
  return fd;
}

// Setup messages are small and latency-bound; Nagle would add delays.
void setNoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

bool isRetryableConnectError(int err) {
  return err == ECONNREFUSED || err == ECONNRESET || err == ETIMEDOUT || err == EAGAIN;
}

bool isPeerGone(int err) { return err == EPIPE || err == ECONNRESET || err == ENOTCONN; }

}  // namespace

Socket::Socket(Socket&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      peer_(other.peer_),
      peerName_(std::move(other.peerName_)),
      tls_(std::move(other.tls_)) {}

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    peer_ = other.peer_;
    peerName_ = std::move(other.peerName_);
    tls_ = std::move(other.tls_);
  }
  return *this;
}

Socket::~Socket() { close(); }

void Socket::close() {
  tls_.reset();  // its close_notify goes out before the socket closes
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Socket Socket::listen(const SocketAddress& address) {
  Socket socket(openSocket(address.family()), SocketAddress());
  if (::bind(socket.fd_, address.get(), address.length()) != 0)
    throwSystemError("bind to " + address.toString(), errno);
  if (::listen(socket.fd_, SOMAXCONN) != 0) throwSystemError("listen on " + address.toString(), errno);
  return socket;
}

Socket Socket::connect(const SocketAddress& address, const Deadline& deadline, std::string peerName,
                       WhenRefused whenRefused) {
  auto retryDelay = milliseconds(1);
  while (true) {
    Socket socket(openSocket(address.family()), address);
    socket.setPeerName(peerName);
    int err = ::connect(socket.fd_, address.get(), address.length()) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      pollfd pending{socket.fd_, POLLOUT, 0};
      while (pending.revents == 0) {
        if (!pollFor({&pending, 1}, deadline)) deadline.throwTimeout("connecting to " + socket.describePeer());
      }
      socklen_t length = sizeof(err);
      getsockopt(socket.fd_, SOL_SOCKET, SO_ERROR, &err, &length);
    }
    if (err == 0) {
      setNoDelay(socket.fd_);
      return socket;
    }
    if (err == ECONNREFUSED && whenRefused == WhenRefused::Fail)
      throwError(trncclRemoteError, socket.describePeer() + " refused the connection (gone?)");
    if (!isRetryableConnectError(err)) throwSystemError("connect to " + socket.describePeer(), err);
    pollFor({}, deadline, retryDelay);
    if (deadline.expired()) {
      deadline.throwTimeout("connecting to " + socket.describePeer() + " (" + std::strerror(err) + ")");
    }
    retryDelay = std::min(retryDelay * 2, Deadline::kAbortCheckInterval);
  }
}

std::optional<Socket> Socket::tryAccept() {
  sockaddr_storage peer{};
  socklen_t length = sizeof(peer);
  int fd = ::accept4(fd_, reinterpret_cast<sockaddr*>(&peer), &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) {
    // A connection that went away before we took it is not our problem.
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED || errno == EINTR) return std::nullopt;
    throwSystemError("accept on " + localAddress().toString(), errno);
  }
  setNoDelay(fd);
  return Socket(fd, SocketAddress(reinterpret_cast<sockaddr*>(&peer), length));
}

Socket Socket::accept(const Deadline& deadline) {
  while (true) {
    if (auto socket = tryAccept()) return std::move(*socket);
    pollfd listening{fd_, POLLIN, 0};
    if (!pollFor({&listening, 1}, deadline))
      deadline.throwTimeout("waiting for a connection on " + localAddress().toString());
  }
}

size_t Socket::sendSome(const void* data, size_t bytes) {
  iovec part{const_cast<void*>(data), bytes};
  return sendSomeParts(std::span<iovec>(&part, 1));
}

void Socket::startTls(std::shared_ptr<const TlsContext> context, TlsRole role) {
  if (context) tls_ = std::make_unique<TlsSession>(std::move(context), fd_, role);
}

short Socket::pollEvents(short usual) const { return tls_ ? tls_->wantedEvents(usual) : usual; }

bool Socket::hasBuffered() const { return tls_ && tls_->hasBuffered(); }

bool Socket::tlsFailed() const { return tls_ && tls_->failed(); }

size_t Socket::sendSomeParts(std::span<iovec> parts) {
  if (tls_) return tls_->write(parts, describePeer());
  msghdr message{};
  message.msg_iov = parts.data();
  message.msg_iovlen = parts.size();
  while (true) {
    ssize_t sent = ::sendmsg(fd_, &message, MSG_NOSIGNAL);
    if (sent >= 0) return static_cast<size_t>(sent);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    if (isPeerGone(errno)) throwError(trncclRemoteError, "connection to " + describePeer() + " was closed by the peer");
    throwSystemError("send to " + describePeer(), errno);
  }
}

size_t Socket::recvSome(void* data, size_t bytes) {
  if (bytes == 0) return 0;
  if (tls_) return tls_->read(data, bytes, describePeer());
  while (true) {
    ssize_t received = ::recv(fd_, data, bytes, 0);
    if (received > 0) return static_cast<size_t>(received);
    if (received == 0 || isPeerGone(errno))
      throwError(trncclRemoteError, "connection to " + describePeer() + " was " +
                                        (received < 0 && errno == ECONNRESET ? "reset" : "closed") + " by the peer");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    throwSystemError("receive from " + describePeer(), errno);
  }
}

namespace {

// Calls move(done) until `bytes` have moved, polling for `event` whenever it
// would block. It tries before checking the deadline, so a small reply that
// fits the socket buffer still goes out when the time is up.
template <class Move>
void moveAll(const Socket& socket, short event, size_t bytes, const Deadline& deadline, const char* doing, Move move) {
  pollfd ready{socket.fd(), event, 0};
  for (size_t done = 0; done < bytes;) {
    size_t moved = move(done);
    done += moved;
    ready.events = socket.pollEvents(event);
    if (done < bytes && moved == 0 && !pollFor({&ready, 1}, deadline))
      deadline.throwTimeout(doing + socket.describePeer());
  }
}

}  // namespace

void Socket::sendAll(const void* data, size_t bytes, const Deadline& deadline) {
  const char* start = static_cast<const char*>(data);
  moveAll(*this, POLLOUT, bytes, deadline, "sending to ",
          [&](size_t done) { return sendSome(start + done, bytes - done); });
}

void Socket::recvAll(void* data, size_t bytes, const Deadline& deadline) {
  char* start = static_cast<char*>(data);
  moveAll(*this, POLLIN, bytes, deadline, "receiving from ",
          [&](size_t done) { return recvSome(start + done, bytes - done); });
}

SocketAddress Socket::localAddress() const {
  sockaddr_storage local{};
  socklen_t length = sizeof(local);
  if (getsockname(fd_, reinterpret_cast<sockaddr*>(&local), &length) != 0) throwSystemError("getsockname", errno);
  return SocketAddress(reinterpret_cast<sockaddr*>(&local), length);
}

std::string Socket::describePeer() const {
  return peerName_.empty() ? peer_.toString() : peerName_ + " (" + peer_.toString() + ")";
}

}  // namespace trnccl::net
