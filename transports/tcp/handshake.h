// Setting up the TCP transport's connections. Every rank with a lower-ranked
// peer listens on each interface TRNCCL_SOCKET_IFNAME selects (loopback when
// unset; at most kMaxRailInterfaces); all ranks publish an Endpoint (those
// addresses, a fresh random secret, their socket count) through the
// out-of-band all-gather. A pair's connection i goes to the listener's
// address i (modulo their count): with one interface per network (rail),
// each connection travels its own. Then the lower rank
// of each pair opens the pair's connections, each starting with a Hello that
// presents the listener's secret, and the higher rank accepts them, answering
// each with kWelcome, or refusing (logging it, and closing the connection)
// one whose hello is not right: garbage, another job, a wrong secret, a rank
// that is not a lower peer, a connection index out of range or taken; and
// dropping (logging it) one whose hello is not whole within
// net::greetingLimit() or when set-up ends. Each
// rank waits for its connections in both directions at once, so set-up takes
// one round trip whatever the rank count; the listener closes once all are
// there.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/secret.h"
#include "base/socket.h"
#include "transports/tcp/config.h"
#include "transports/transport.h"

namespace trnccl::transport::tcp {

using trnccl::Secret;

inline constexpr int kMaxRailInterfaces = 4;

// What each rank publishes through the all-gather.
struct Endpoint {
  net::WireAddress address[kMaxRailInterfaces];  // address[0].ipVersion 0: this rank does not listen
  Secret secret;                                 // what connections to those addresses must present
  uint32_t socketsPerPeer;
  uint32_t addresses;  // how many it listens at
};
static_assert(sizeof(Endpoint) == 120);

inline constexpr uint64_t kHelloMagic = 0x49485043544e5254;  // "TRNTCPHI"
inline constexpr uint32_t kHelloVersion = 1;

// The first bytes on every connection, from the connecting (lower) rank.
struct Hello {
  uint64_t magic;
  uint32_t version;
  uint32_t socket;  // which of the pair's connections this is
  uint64_t job;     // jobIdOf(Options::jobKey)
  Secret secret;    // the listener's
  int32_t rank;
  int32_t nranks;
};
static_assert(sizeof(Hello) == 48);

// The listener's answer to a hello it accepts.
inline constexpr uint64_t kWelcome = 0x4b4f5043544e5254;  // "TRNTCPOK"

Hello makeHello(uint64_t job, const Secret& listenerSecret, int rank, int nranks, uint32_t socket);

// What a listening rank expects of the hellos it accepts.
struct HelloExpectation {
  uint64_t job;
  Secret secret;  // the listener's
  int rank;       // the listener's
  int nranks;
};

// Why the first `received` bytes of `hello` are refused (garbage at its
// first 8 bytes); empty if right so far. `isPeer(r)` for a lower rank r:
// whether the listener serves it. Pure, so the fuzzers can feed it bytes;
// the handshake checks the connection index against its own state after.
std::string helloProblem(const Hello& hello, size_t received, const HelloExpectation& expected,
                         const std::function<bool(int)>& isPeer);

// How many connections two ranks that published these counts open.
inline int socketsBetween(uint32_t a, uint32_t b) { return static_cast<int>(a < b ? a : b); }

struct PeerConnections {
  int rank;
  std::vector<net::Socket> sockets;  // named "rank <rank>" for messages
};

// Collective over options.oob (every rank calls it, also one without peers).
// Returns the connections to each of options.peers, in ascending rank order.
// Throws trnccl::Error naming the rank and address it could not reach
// (RemoteError: refused; Timeout: no answer within options.timeout;
// SystemError: the network says unreachable), or the ranks whose connections
// never came (Timeout).
std::vector<PeerConnections> connectPeers(const Options& options, const Config& config);

}  // namespace trnccl::transport::tcp
