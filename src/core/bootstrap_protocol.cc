#include "core/bootstrap_protocol.h"

#include <algorithm>
#include <cerrno>

#include "base/log.h"

namespace trnccl::core::wire {

Hello makeHello(Purpose purpose, const Secret& secret, int rank, int nranks) {
  return {kHelloMagic, kProtocolVersion, static_cast<uint32_t>(purpose), secret, rank, nranks};
}

std::string rankContext(int rank, int nranks, const char* operation) {
  return "bootstrap rank " + std::to_string(rank) + "/" + std::to_string(nranks) + " " + operation + ": ";
}

GreetingStatus judgeGreeting(std::span<const char> bytes, size_t size, const Secret& secret, Purpose purpose,
                             std::string& refusal) {
  auto refuse = [&refusal](std::string reason) {
    refusal = std::move(reason);
    return GreetingStatus::Refused;
  };
  Hello hello{};
  std::memcpy(&hello, bytes.data(), std::min(bytes.size(), sizeof(hello)));
  if (bytes.size() >= sizeof(hello.magic) && hello.magic != kHelloMagic)
    return refuse("not a trnccl bootstrap connection");
  if (bytes.size() < sizeof(Hello)) return GreetingStatus::Incomplete;
  if (hello.version != kProtocolVersion)
    return refuse("protocol version " + std::to_string(hello.version) + ", expected " +
                  std::to_string(kProtocolVersion));
  if (hello.purpose != static_cast<uint32_t>(purpose)) return refuse("unexpected purpose");
  if (hello.secret != secret) return refuse("wrong secret");
  return bytes.size() == size ? GreetingStatus::Complete : GreetingStatus::Incomplete;
}

std::string registrationProblem(const Hello& hello, const Registration& registration) {
  if (hello.nranks < 1 || hello.rank < 0 || hello.rank >= hello.nranks ||
      !net::SocketAddress::fromWire(registration.listenAddress)) {
    return "malformed registration";
  }
  return {};
}

bool frameHeaderValid(const FrameHeader& header) {
  bool knownChannel = header.channel == static_cast<uint32_t>(Channel::User) ||
                      header.channel == static_cast<uint32_t>(Channel::Collective);
  return knownChannel && header.bytes <= kMaxFrameBytes;
}

bool replyHeaderValid(const ReplyHeader& reply, int nranks) {
  if (reply.code == trncclSuccess) return reply.bytes == nranks * sizeof(net::WireAddress);
  bool knownFailure =
      reply.code == trncclInvalidUsage || reply.code == trncclTimeout || reply.code == trncclRemoteError;
  return knownFailure && reply.bytes <= kMaxErrorMessage;
}

void acceptGreetings(net::Socket& listener, const std::shared_ptr<const net::TlsContext>& tls, size_t bytes,
                     std::vector<Greeting>& greetings) {
  while (auto socket = listener.tryAccept()) {
    socket->startTls(tls, net::TlsRole::Server);
    greetings.emplace_back(std::move(*socket), bytes);
  }
}

void dropOverdue(std::vector<Greeting>& greetings, const std::string& owner) {
  const Clock::time_point now = Clock::now();
  std::erase_if(greetings, [&](Greeting& greeting) {
    if (!greeting.overdue(now)) return false;
    TRNCCL_WARN("%s dropped a connection from %s: it sent %s", owner.c_str(),
                greeting.socket().peerAddress().toString().c_str(), greeting.progress().c_str());
    return true;
  });
}

void dropAll(std::vector<Greeting>& greetings, const std::string& owner, const char* why) {
  for (Greeting& greeting : greetings)
    TRNCCL_WARN("%s dropped a connection from %s: %s; it sent %s", owner.c_str(),
                greeting.socket().peerAddress().toString().c_str(), why, greeting.progress().c_str());
  greetings.clear();
}

Clock::time_point firstDropAt(const std::vector<Greeting>& greetings) {
  Clock::time_point first = Clock::time_point::max();
  for (const Greeting& greeting : greetings) first = std::min(first, greeting.dropAt());
  return first;
}

}  // namespace trnccl::core::wire
