// The TCP transport's own promises, beyond the conformance suite: the frame
// parser, hostile peers and stray connections, unreachable addresses,
// striping over several connections, no head-of-line blocking, and waiting.
#include <arpa/inet.h>
#include <time.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <functional>
#include <random>
#include <thread>

#include "base/socket.h"
#include "tests/support/open_descriptors.h"
#include "tests/support/outsider.h"
#include "tests/support/scoped_env.h"
#include "tests/transports/check.h"
#include "tests/transports/launch.h"
#include "transports/tcp/frame.h"
#include "transports/tcp/handshake.h"
#include "transports/tcp/tcp_transport.h"

using namespace trnccl;
using namespace trnccl::test;
using namespace trnccl::transport::tcp;
using transport::Request;
using transport::Tag;
using transport::Transport;
using Status = FrameVerdict::Status;

namespace {

constexpr uint64_t kJob = 0x1234567890abcdefull;

// A frame header spelled out field by field, as the wire format says.
FrameHeader header(FrameKind kind, uint64_t seq, uint64_t tag, uint64_t total, uint64_t offset, uint64_t length,
                   uint64_t job = kJob) {
  FrameHeader h;
  std::memset(&h, 0, sizeof h);
  h.magic = 0x464e5254;  // "TRNF"
  h.kind = kind;
  h.job = job;
  h.seq = seq;
  h.tag = tag;
  h.total = total;
  h.offset = offset;
  h.length = length;
  return h;
}

std::span<const std::byte> bytesOf(const FrameHeader& h, size_t count = sizeof(FrameHeader)) {
  return {reinterpret_cast<const std::byte*>(&h), count};
}

// Forwards to the test channel, and runs `afterAllGather` on the endpoints
// every rank published before the transport sees them.
class PeekingOutOfBand : public transport::OutOfBand {
 public:
  PeekingOutOfBand(TestOutOfBand& inner, std::function<void(std::vector<Endpoint>&)> afterAllGather)
      : inner_(inner), afterAllGather_(std::move(afterAllGather)) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  void allGather(void* data, size_t bytes) override {
    inner_.allGather(data, bytes);
    expect(bytes == sizeof(Endpoint), "the tcp transport all-gathers something else");
    std::vector<Endpoint> endpoints(static_cast<size_t>(size()));
    std::memcpy(endpoints.data(), data, endpoints.size() * sizeof(Endpoint));
    afterAllGather_(endpoints);
    std::memcpy(data, endpoints.data(), endpoints.size() * sizeof(Endpoint));
  }
  void barrier() override { inner_.barrier(); }

 private:
  TestOutOfBand& inner_;
  std::function<void(std::vector<Endpoint>&)> afterAllGather_;
};

// A hello as a connecting rank sends it ("TRNTCPHI", version 1).
Hello helloFrom(uint64_t job, const Secret& secret, int rank, uint32_t socket = 0) {
  return {0x49485043544e5254, 1, socket, job, secret, rank, 2};
}
constexpr uint64_t kWelcomeOnWire = 0x4b4f5043544e5254;  // "TRNTCPOK"

net::SocketAddress addressOf(const Endpoint& endpoint) {
  const auto address = net::SocketAddress::fromWire(endpoint.address[0]);
  expect(address.has_value(), "an endpoint without an address");
  return *address;
}

// Rank 0 of a two-rank job played by the test: it publishes an endpoint,
// opens `sockets` connections to the real rank 1 with valid hellos (rank 1
// must use as many), and returns them.
std::vector<net::Socket> pretendToBeRankZeroWith(TestOutOfBand& oob, const std::string& jobKey, uint32_t sockets) {
  std::vector<Endpoint> endpoints(2);
  endpoints[0].socketsPerPeer = sockets;
  oob.allGather(endpoints.data(), sizeof(Endpoint));
  const net::Deadline deadline(std::chrono::seconds(10));
  std::vector<net::Socket> connections;
  for (uint32_t i = 0; i < sockets; ++i) {
    net::Socket socket = net::Socket::connect(addressOf(endpoints[1]), deadline, "rank 1");
    const Hello valid = helloFrom(jobIdOf(jobKey), endpoints[1].secret, 0, i);
    socket.sendAll(&valid, sizeof valid, deadline);
    uint64_t welcome = 0;
    socket.recvAll(&welcome, sizeof welcome, deadline);
    expect(welcome == kWelcomeOnWire, "rank 1 did not welcome a valid hello");
    connections.push_back(std::move(socket));
  }
  return connections;
}

net::Socket pretendToBeRankZero(TestOutOfBand& oob, const std::string& jobKey) {
  return std::move(pretendToBeRankZeroWith(oob, jobKey, 1).front());
}

void sendBytes(net::Socket& socket, std::span<const std::byte> bytes) {
  socket.sendAll(bytes.data(), bytes.size(), net::Deadline(std::chrono::seconds(10)));
}

// Closes `socket` with a TCP reset rather than an orderly FIN: a zero linger
// time makes close() discard what is unsent and send RST.
void resetConnection(net::Socket& socket) {
  const linger abort{1, 0};
  expect(setsockopt(socket.fd(), SOL_SOCKET, SO_LINGER, &abort, sizeof abort) == 0, "SO_LINGER");
  socket = net::Socket();
}

// True once the other end has closed `socket` (within 10 s).
bool closedByPeer(net::Socket& socket) {
  const net::Deadline deadline(std::chrono::seconds(10));
  std::byte sink[256];
  while (!deadline.expired()) {
    try {
      if (socket.recvSome(sink, sizeof sink) == 0) {
        pollfd ready{socket.fd(), POLLIN, 0};
        net::pollFor({&ready, 1}, deadline);
      }
    } catch (const Error& e) {
      return e.code() == trncclRemoteError;
    }
  }
  return false;
}

// Rank `rank` of two and its peer each send the other 100000 bytes, checked.
void sendBothWays(Transport& t, int rank) {
  std::vector<std::byte> out(100000), in(100000);
  fillPattern(out.data(), out.size(), rank, 1 - rank, 1);
  Request send = makeRequest(1 - rank, 1, out.data(), out.size());
  Request receive = makeRequest(1 - rank, 1, in.data(), in.size());
  t.isend(send);
  t.irecv(receive);
  drive(t, {&send, &receive});
  const std::string mismatch = patternMismatch(in.data(), in.size(), 1 - rank, rank, 1);
  expect(mismatch.empty(), mismatch);
}

}  // namespace

// ---- The frame parser ---------------------------------------------------------

TEST_CASE("tcp frames: well-formed frames of every kind parse, and nothing is judged early", "[tcp]") {
  const FrameHeader frames[] = {
      header(FrameKind::Eager, 1, 7, 0, 0, 0),        header(FrameKind::Eager, 2, 7, 65536, 0, 65536),
      header(FrameKind::Rts, 3, 9, 65537, 0, 0),      header(FrameKind::Cts, 3, 0, 0, 0, 0),
      header(FrameKind::Nack, 3, 0, 100, 0, 0),       header(FrameKind::Cancel, 3, 0, 524288, 0, 0),
      header(FrameKind::Data, 3, 9, 65537, 65536, 1), header(FrameKind::Data, 4, 9, 1 << 20, 0, 512 * 1024),
      header(FrameKind::Ack, 12, 0, 0, 0, 0),
  };
  for (const FrameHeader& frame : frames) {
    CAPTURE(static_cast<int>(frame.kind), frame.seq);
    const FrameVerdict verdict = parseFrame(bytesOf(frame), kJob);
    REQUIRE(verdict.status == Status::Valid);
    CHECK(std::memcmp(&verdict.header, &frame, sizeof frame) == 0);
    // Every prefix of a good header waits for more, and extra bytes are not looked at.
    for (size_t prefix = 0; prefix < sizeof frame; ++prefix)
      CHECK(parseFrame(bytesOf(frame, prefix), kJob).status == Status::NeedMore);
  }
}

TEST_CASE("tcp frames: a frame that breaks a rule is malformed, saying which", "[tcp]") {
  struct Case {
    const char* what;
    FrameHeader frame;
    const char* mentions;
  };
  FrameHeader badMagic = header(FrameKind::Eager, 1, 0, 0, 0, 0);
  badMagic.magic = 0xdeadbeef;
  FrameHeader unknownKind = header(FrameKind::Eager, 1, 0, 0, 0, 0);
  unknownKind.kind = static_cast<FrameKind>(42);
  FrameHeader reserved = header(FrameKind::Cts, 1, 0, 0, 0, 0);
  reserved.reserved[1] = 1;
  const Case cases[] = {
      {"bad magic", badMagic, "bad magic 0xdeadbeef"},
      {"unknown kind", unknownKind, "unknown frame kind 42"},
      {"reserved bytes", reserved, "reserved"},
      {"another job", header(FrameKind::Cts, 1, 0, 0, 0, 0, kJob + 1), "another communicator"},
      {"message 0", header(FrameKind::Cts, 0, 0, 0, 0, 0), "message 0"},
      {"eager too large", header(FrameKind::Eager, 1, 0, 65537, 0, 65537), "at most 65536"},
      {"eager length not its size", header(FrameKind::Eager, 1, 0, 10, 0, 11), "11 payload"},
      {"rts small enough to be eager", header(FrameKind::Rts, 1, 0, 65536, 0, 0), "65536 bytes"},
      {"rts with payload", header(FrameKind::Rts, 1, 0, 1 << 20, 0, 4), "payload"},
      {"rts beyond the limit", header(FrameKind::Rts, 1, 0, kMaxMessageBytes + 1, 0, 0), "not in"},
      {"cts with a tag", header(FrameKind::Cts, 1, 5, 0, 0, 0), "does not use"},
      {"cancel with payload", header(FrameKind::Cancel, 1, 0, 0, 0, 8), "does not use"},
      {"empty data", header(FrameKind::Data, 1, 0, 1 << 20, 0, 0), "0 payload bytes"},
      {"ack with a payload", header(FrameKind::Ack, 1, 0, 0, 0, 8), "fields it does not use"},
      {"data chunk too long", header(FrameKind::Data, 1, 0, 4 << 20, 0, 512 * 1024 + 1), "524289 payload bytes"},
      {"data past the end", header(FrameKind::Data, 1, 0, 1 << 20, (1 << 20) - 10, 11), "at offset 1048566"},
      {"data offset overflowing", header(FrameKind::Data, 1, 0, 1 << 20, UINT64_MAX - 2, 8), "at offset"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const FrameVerdict verdict = parseFrame(bytesOf(c.frame), kJob);
    CHECK(verdict.status == Status::Malformed);
    CHECK_THAT(verdict.problem, Catch::Contains(c.mentions));
  }
  // A wrong magic or kind is known before the rest has arrived.
  CHECK(parseFrame(bytesOf(badMagic, 4), kJob).status == Status::Malformed);
  CHECK(parseFrame(bytesOf(unknownKind, 5), kJob).status == Status::Malformed);
}

TEST_CASE("tcp frames: random bytes never pass as a frame of the job", "[tcp]") {
  std::mt19937_64 random(7);
  std::vector<std::byte> bytes(sizeof(FrameHeader));
  for (int i = 0; i < 20000; ++i) {
    for (std::byte& b : bytes) b = static_cast<std::byte>(random());
    // Keep the magic right half of the time, so that the later rules get tried.
    if (i % 2 == 0) std::memcpy(bytes.data(), "TRNF", 4);
    const FrameVerdict verdict = parseFrame(bytes, kJob);
    REQUIRE(verdict.status == Status::Malformed);
  }
}

// ---- Hostile and stray peers --------------------------------------------------

TEST_CASE(
    "tcp: a malformed or truncated frame from a peer is an error naming it, on the pending "
    "and later requests, and writes nothing",
    "[tcp]") {
  struct Case {
    const char* what;
    std::function<void(net::Socket&, uint64_t job)> misbehave;
    trncclResult_t code;
    std::vector<std::string> mentions;
    // A valid frame's payload streams straight into the matched receive, so
    // a connection lost mid-payload leaves the bytes that came; nothing may
    // land past the receive's capacity either way.
    bool payloadArrives = false;
  };
  auto send = [](const FrameHeader& h) { return [h](net::Socket& s, uint64_t) { sendBytes(s, bytesOf(h)); }; };
  FrameHeader badMagic = header(FrameKind::Eager, 1, 5, 8, 0, 8);
  badMagic.magic = 0x12345678;
  const Case cases[] = {
      {"bad magic", send(badMagic), trncclRemoteError, {"malformed frame", "bad magic"}},
      {"wrong job id",
       [](net::Socket& s, uint64_t job) { sendBytes(s, bytesOf(header(FrameKind::Eager, 1, 5, 8, 0, 8, job + 1))); },
       trncclRemoteError,
       {"malformed frame", "another communicator"}},
      {"eager length beyond bounds",
       [](net::Socket& s, uint64_t job) {
         sendBytes(s, bytesOf(header(FrameKind::Eager, 1, 5, 1 << 30, 0, 1 << 30, job)));
       },
       trncclRemoteError,
       {"malformed frame", "1073741824 bytes"}},
      {"data chunk beyond bounds",
       [](net::Socket& s, uint64_t job) {
         sendBytes(s, bytesOf(header(FrameKind::Rts, 1, 7, 1 << 20, 0, 0, job)));
         sendBytes(s, bytesOf(header(FrameKind::Data, 1, 7, 1 << 20, 0, 4 << 20, job)));
       },
       trncclRemoteError,
       {"malformed frame", "4194304 payload bytes"}},
      {"data it was never cleared to send",
       [](net::Socket& s, uint64_t job) {
         sendBytes(s, bytesOf(header(FrameKind::Data, 9, 5, 1 << 20, 0, 1000, job)));
       },
       trncclRemoteError,
       {"data of message 9", "not cleared"}},
      {"a second message with a pending tag",
       [](net::Socket& s, uint64_t job) {
         sendBytes(s, bytesOf(header(FrameKind::Rts, 1, 6, 1 << 20, 0, 0, job)));
         sendBytes(s, bytesOf(header(FrameKind::Rts, 2, 6, 1 << 20, 0, 0, job)));
       },
       trncclRemoteError,
       {"second message with tag 6"}},
      {"truncated header, then close",
       [](net::Socket& s, uint64_t job) {
         sendBytes(s, bytesOf(header(FrameKind::Eager, 1, 5, 8, 0, 8, job), 20));
         s = net::Socket();
       },
       trncclRemoteError,
       {"closed", "middle of a frame"}},
      {"reset (RST) in the middle of a payload",
       [](net::Socket& s, uint64_t job) {
         sendBytes(s, bytesOf(header(FrameKind::Eager, 1, 5, 64, 0, 64, job)));
         sendBytes(s, std::vector<std::byte>(10, std::byte{0x33}));
         resetConnection(s);
       },
       trncclRemoteError,
       {"reset by the peer"},
       true},
      {"reset (RST) between frames",
       [](net::Socket& s, uint64_t) { resetConnection(s); },
       trncclRemoteError,
       {"reset by the peer"}},
      {"close between frames",
       [](net::Socket& s, uint64_t) { s = net::Socket(); },
       trncclRemoteError,
       {"closed by the peer"}},
      {"garbage",
       [](net::Socket& s, uint64_t) {
         std::vector<std::byte> garbage(300);
         std::mt19937 random(3);
         for (std::byte& b : garbage) b = static_cast<std::byte>(random());
         sendBytes(s, garbage);
       },
       trncclRemoteError,
       {"malformed frame"}},
      {"a message larger than the receive",
       [](net::Socket& s, uint64_t job) {
         sendBytes(s, bytesOf(header(FrameKind::Eager, 1, 5, 4000, 0, 4000, job)));
         sendBytes(s, std::vector<std::byte>(4000, std::byte{0x33}));
       },
       trncclInvalidUsage,
       {"4000 bytes", "100-byte receive"}},
  };
  const Case& c = GENERATE_REF(from_range(std::begin(cases), std::end(cases)));
  CAPTURE(c.what);
  const std::string jobKey = uniqueJobKey("tcp-hostile");
  std::string fakeAddress;  // rank 0's, as rank 1 sees it
  requireAllOk(launch(Launch::Threads, 2, [&](int rank, TestOutOfBand& oob) {
    if (rank == 0) {
      net::Socket socket = pretendToBeRankZero(oob, jobKey);
      fakeAddress = socket.localAddress().toString();
      oob.barrier();  // rank 1 has posted its receive
      c.misbehave(socket, jobIdOf(jobKey));
      oob.barrier();  // rank 1 has seen the error
      return;
    }
    auto t = transport::createTcpTransport(optionsFor(oob, jobKey));
    constexpr size_t kCapacity = 100, kGuard = 64;
    std::vector<std::byte> buffer(kCapacity + kGuard, std::byte{0xA5});
    Request receive = makeRequest(0, 5, buffer.data(), kCapacity);
    t->irecv(receive);
    oob.barrier();
    const Error e = errorFrom([&] { drive(*t, {&receive}, std::chrono::seconds(10)); });
    expect(e.code() == c.code, "got " + std::to_string(e.code()) + ": " + e.what());
    std::vector<std::string> mentions = c.mentions;
    mentions.push_back("rank 0");
    if (c.code == trncclRemoteError) mentions.push_back(fakeAddress);
    expectMentions(e.what(), mentions);
    const auto untouchedFrom = buffer.begin() + (c.payloadArrives ? kCapacity : 0);
    expect(std::all_of(untouchedFrom, buffer.end(), [](std::byte b) { return b == std::byte{0xA5}; }),
           c.payloadArrives ? "bytes were written past the receive" : "the receive buffer was written");
    if (c.code == trncclRemoteError) {
      // The peer is gone for good: a later request fails too.
      std::byte byte{};
      Request later = makeRequest(0, 6, &byte, 1);
      t->isend(later);
      const Error again = errorFrom([&] { drive(*t, {&later}, std::chrono::seconds(10)); });
      expect(again.code() == trncclRemoteError, std::string("later: ") + again.what());
      expectMentions(again.what(), {"rank 0", fakeAddress});
    }
    oob.barrier();
  }));
}

TEST_CASE("tcp: stray connections during set-up are refused and the job goes on", "[tcp]") {
  const std::string jobKey = uniqueJobKey("tcp-stray");
  std::vector<net::Socket> strays;  // rank 0's thread opens them, the test checks them
  requireAllOk(launch(Launch::Threads, 2, [&](int rank, TestOutOfBand& oob) {
    transport::Options options = optionsFor(oob, jobKey);
    // Before rank 0 connects for real, strays reach rank 1's listener first.
    PeekingOutOfBand peeking(oob, [&](std::vector<Endpoint>& endpoints) {
      const net::Deadline deadline(std::chrono::seconds(10));
      const net::SocketAddress address = addressOf(endpoints[1]);
      Secret wrongSecret = endpoints[1].secret;
      wrongSecret[0] ^= 1;
      const Hello hellos[] = {
          helloFrom(jobIdOf(jobKey), wrongSecret, 0), helloFrom(jobIdOf(jobKey + "-other"), endpoints[1].secret, 0),
          helloFrom(jobIdOf(jobKey), endpoints[1].secret, 1),     // not a lower rank
          helloFrom(jobIdOf(jobKey), endpoints[1].secret, 0, 7),  // no such connection
      };
      for (const Hello& h : hellos) {
        strays.push_back(net::Socket::connect(address, deadline));
        strays.back().sendAll(&h, sizeof h, deadline);
      }
      strays.push_back(net::Socket::connect(address, deadline));
      strays.back().sendAll("GET / HTTP/1.0\r\n\r\n", 18, deadline);
      strays.push_back(net::Socket::connect(address, deadline));  // says nothing
    });
    if (rank == 0) options.oob = &peeking;
    sendBothWays(*transport::createTcpTransport(options), rank);
    oob.barrier();
  }));
  REQUIRE(strays.size() == 6);
  for (size_t i = 0; i < strays.size(); ++i) {
    CAPTURE(i);
    CHECK(closedByPeer(strays[i]));
  }
}

TEST_CASE("tcp: silent and trickling connections during set-up are dropped within the greeting limit", "[tcp]") {
  using namespace std::chrono_literals;
  constexpr std::chrono::milliseconds kLimit = 1s, kDropWithin = 3 * kLimit, kTrickleGap = 200ms;
  test::ScopedEnv limit("TRNCCL_GREETING_TIMEOUT_MS", std::to_string(kLimit.count()));
  const std::string jobKey = uniqueJobKey("tcp-trickle");
  const int descriptorsBefore = test::openFileDescriptors();
  std::optional<std::chrono::milliseconds> silentDropped, trickleDropped;
  requireAllOk(launch(Launch::Threads, 2, [&](int rank, TestOutOfBand& oob) {
    transport::Options options = optionsFor(oob, jobKey);
    // Rank 0 connects for real only once the outsiders at rank 1's listener
    // are gone: rank 1 must drop them while it waits in set-up.
    PeekingOutOfBand peeking(oob, [&](std::vector<Endpoint>& endpoints) {
      const net::SocketAddress address = addressOf(endpoints[1]);
      // The right magic and a wrong secret, a byte at a time: only the limit
      // ends it before its last byte.
      const Hello hello = helloFrom(jobIdOf(jobKey), Secret{}, 0);
      std::thread trickler([&] {
        net::Socket socket = net::Socket::connect(address, net::Deadline(10s));
        trickleDropped =
            test::closedWhileTrickling(socket, std::as_bytes(std::span(&hello, 1)), kTrickleGap, kDropWithin);
      });
      net::Socket silent = net::Socket::connect(address, net::Deadline(10s));
      silentDropped = test::closedWhileTrickling(silent, {}, kTrickleGap, kDropWithin);
      trickler.join();
    });
    if (rank == 0) options.oob = &peeking;
    sendBothWays(*transport::createTcpTransport(options), rank);
    oob.barrier();
  }));
  CHECK(silentDropped.has_value());
  CHECK(trickleDropped.has_value());
  CHECK(test::openFileDescriptorsSettle(descriptorsBefore, 10s) <= descriptorsBefore);
}

// ---- Unreachable peers ---------------------------------------------------------

TEST_CASE(
    "tcp: an address nobody listens on or nobody answers from is an error naming it within "
    "the timeout",
    "[tcp]") {
  // A port that was just free on loopback; a TEST-NET-1 address nothing routes to.
  const uint16_t closedPort = [] {
    net::Socket probe = net::Socket::listen(net::SocketAddress::parse("127.0.0.1:0"));
    return probe.localAddress().port();
  }();
  const std::string unreachable =
      GENERATE_COPY(std::string("127.0.0.1:") + std::to_string(closedPort), std::string("192.0.2.1:9"));
  CAPTURE(unreachable);
  const std::string jobKey = uniqueJobKey("tcp-unreachable");
  constexpr auto kTimeout = std::chrono::milliseconds(1500);
  requireAllOk(launch(Launch::Threads, 2, [&](int rank, TestOutOfBand& oob) {
    transport::Options options = optionsFor(oob, jobKey);
    options.timeout = kTimeout;
    PeekingOutOfBand misdirected(oob, [&](std::vector<Endpoint>& endpoints) {
      endpoints[1].address[0] = net::SocketAddress::parse(unreachable).toWire();
    });
    if (rank == 0) options.oob = &misdirected;
    const auto start = std::chrono::steady_clock::now();
    const Error e = errorFrom([&] { transport::createTcpTransport(options); });
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    expect(took < 1.5 + 3.0, "gave up only after " + std::to_string(took) + " s");
    if (rank == 0) {
      expect(e.code() == trncclRemoteError || e.code() == trncclTimeout || e.code() == trncclSystemError,
             std::string("rank 0 got ") + e.what());
      expectMentions(e.what(), {"rank 1", unreachable});
    } else {
      // The rank that listens waits for rank 0 in vain.
      expect(e.code() == trncclTimeout, std::string("rank 1 got ") + e.what());
      expectMentions(e.what(), {"rank(s) 0", "1500 ms"});
    }
  }));
}

// ---- Striping and interleaving --------------------------------------------------

TEST_CASE(
    "tcp: several connections per pair deliver identical data for odd sizes and 64 MiB, "
    "with the smaller count of two ranks",
    "[tcp]") {
  const auto [sockets0, sockets1] = GENERATE(std::make_pair(3, 3), std::make_pair(8, 8), std::make_pair(2, 5));
  CAPTURE(sockets0, sockets1);
  const std::string jobKey = uniqueJobKey("tcp-striping");
  requireAllOk(launch(Launch::Processes, 2, [&](int rank, TestOutOfBand& oob) {
    ScopedEnv sockets("TRNCCL_TCP_SOCKETS_PER_PEER", std::to_string(rank == 0 ? sockets0 : sockets1));
    auto t = transport::createTcpTransport(optionsFor(oob, jobKey));
    const int peer = 1 - rank;
    Tag tag = 0;
    for (const size_t bytes : {size_t{1}, size_t{65535}, size_t{65537}, size_t{524287}, size_t{524289},
                               size_t{(3 << 20) + 7}, size_t{64} << 20}) {
      ++tag;
      std::vector<std::byte> out(bytes), in(bytes);
      fillPattern(out.data(), bytes, rank, peer, tag);
      Request send = makeRequest(peer, tag, out.data(), bytes);
      Request receive = makeRequest(peer, tag, in.data(), bytes);
      t->irecv(receive);
      t->isend(send);
      drive(*t, {&send, &receive});
      expect(receive.transferred == bytes, "wrong size for " + std::to_string(bytes));
      const std::string mismatch = patternMismatch(in.data(), bytes, peer, rank, tag);
      expect(mismatch.empty(), mismatch);
    }
  }));
}

TEST_CASE(
    "tcp: a small message sent while a huge one streams on the same connections completes "
    "first",
    "[tcp]") {
  const int sockets = GENERATE(1, 2);
  CAPTURE(sockets);
  ScopedEnv socketCount("TRNCCL_TCP_SOCKETS_PER_PEER", std::to_string(sockets));
  const std::string jobKey = uniqueJobKey("tcp-hol");
  // The small message may wait behind what the kernel already buffers on its
  // connection (several MiB each way on loopback), never behind the rest of
  // the huge one: huge enough that the two cannot be confused.
  constexpr size_t kHuge = size_t{256} << 20, kMedium = size_t{1} << 20, kSmall = 8;
  constexpr Tag kHugeTag = 1, kSmallTag = 2, kFirstMediumTag = 10;
  constexpr int kMediums = 4;
  requireAllOk(launch(Launch::Threads, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createTcpTransport(optionsFor(oob, jobKey));
    std::vector<std::byte> huge(kHuge), small(kSmall);
    std::vector<std::vector<std::byte>> mediums(kMediums, std::vector<std::byte>(kMedium));
    Request hugeRequest = makeRequest(1 - rank, kHugeTag, huge.data(), kHuge);
    Request smallRequest = makeRequest(1 - rank, kSmallTag, small.data(), kSmall);
    std::vector<Request> mediumRequests;
    for (int i = 0; i < kMediums; ++i)
      mediumRequests.push_back(makeRequest(1 - rank, kFirstMediumTag + i, mediums[i].data(), kMedium));
    std::vector<Request*> all{&hugeRequest, &smallRequest};
    for (Request& r : mediumRequests) all.push_back(&r);
    if (rank == 0) {
      fillPattern(huge.data(), kHuge, 0, 1, kHugeTag);
      fillPattern(small.data(), kSmall, 0, 1, kSmallTag);
      oob.barrier();
      t->isend(hugeRequest);
      for (Request& r : mediumRequests) t->isend(r);
      // Until rank 1 stops reading: the huge message is cleared and streaming.
      for (int i = 0; i < 50; ++i) {
        t->progress();
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      oob.barrier();
      t->isend(smallRequest);
      drive(*t, all);
    } else {
      for (Request* r : all) t->irecv(*r);
      oob.barrier();
      for (int i = 0; i < 3; ++i) {
        t->progress();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      oob.barrier();
      drive(*t, {&smallRequest});
      expect(!hugeRequest.done, "the huge message completed before the small one");
      drive(*t, all);
      expect(patternMismatch(huge.data(), kHuge, 0, 1, kHugeTag).empty(), "huge message corrupt");
      expect(patternMismatch(small.data(), kSmall, 0, 1, kSmallTag).empty(), "small message corrupt");
    }
  }));
}

// ---- Set-up corner cases and waiting ---------------------------------------------

TEST_CASE("tcp: a rank without peers still takes part in set-up", "[tcp]") {
  const std::string jobKey = uniqueJobKey("tcp-no-peers");
  requireAllOk(launch(Launch::Threads, 3, [&](int rank, TestOutOfBand& oob) {
    transport::Options options = optionsFor(oob, jobKey);
    options.peers = rank == 2 ? std::vector<int>{} : std::vector<int>{1 - rank};
    auto t = transport::createTcpTransport(options);
    if (rank == 2) return;
    std::byte out{static_cast<unsigned char>(rank + 1)}, in{};
    Request send = makeRequest(1 - rank, 1, &out, 1);
    Request receive = makeRequest(1 - rank, 1, &in, 1);
    t->isend(send);
    t->irecv(receive);
    drive(*t, {&send, &receive});
    expect(in == std::byte{static_cast<unsigned char>(2 - rank)}, "wrong byte");
  }));
}

TEST_CASE("tcp: a bad TRNCCL_TCP_SOCKETS_PER_PEER is an error naming it", "[tcp]") {
  const char* value = GENERATE("0", "17", "two");
  ScopedEnv sockets("TRNCCL_TCP_SOCKETS_PER_PEER", std::string(value));
  requireAllOk(launch(Launch::Threads, 1, [&](int, TestOutOfBand& oob) {
    const Error e = errorFrom([&] { transport::createTcpTransport(optionsFor(oob, uniqueJobKey("tcp-bad-env"))); });
    expect(e.code() == trncclInvalidArgument, e.what());
    expectMentions(e.what(), {"TRNCCL_TCP_SOCKETS_PER_PEER", value});
  }));
}

// ---- Rail failover: copies of a frame ---------------------------------------

TEST_CASE(
    "tcp rails: a frame cut off on one connection and sent whole on another arrives once, the rest of the cut "
    "copy and later copies are dropped, and frames read whole are acknowledged on their connection",
    "[tcp][rails]") {
  ScopedEnv sockets("TRNCCL_TCP_SOCKETS_PER_PEER", "2");
  const std::string jobKey = uniqueJobKey("tcp-copies");
  constexpr size_t kBytes = 1000, kCut = 300;
  // Frames 1 to kFrames, frame n message n with tag n + 4; all but frame 1's
  // whole copy and frame 2's second copy travel on connection 1.
  constexpr uint64_t kFrames = kAckEvery + 10;
  auto payloadOf = [](Tag tag) {
    std::vector<std::byte> bytes(kBytes);
    fillPattern(bytes.data(), kBytes, 0, 1, tag);
    return bytes;
  };
  auto eager = [](uint64_t job, uint64_t n) {
    FrameHeader h = header(FrameKind::Eager, n, n + 4, kBytes, 0, kBytes, job);
    h.number = n;
    return h;
  };
  requireAllOk(launch(Launch::Threads, 2, [&](int rank, TestOutOfBand& oob) {
    if (rank == 0) {
      std::vector<net::Socket> c = pretendToBeRankZeroWith(oob, jobKey, 2);
      const uint64_t job = jobIdOf(jobKey);
      oob.barrier();  // rank 1 has posted its receives
      // Frame 1: its first 300 payload bytes on connection 1, then all of it on connection 0.
      const std::vector<std::byte> first = payloadOf(5);
      sendBytes(c[1], bytesOf(eager(job, 1)));
      sendBytes(c[1], std::span(first).first(kCut));
      sendBytes(c[0], bytesOf(eager(job, 1)));
      sendBytes(c[0], first);
      oob.barrier();  // rank 1 received it and wiped its buffer
      // The rest of the cut copy; frame 2 on both connections; the others.
      sendBytes(c[1], std::span(first).subspan(kCut));
      for (uint64_t n = 2; n <= kFrames; ++n) {
        for (net::Socket* on : {&c[1], n == 2 ? &c[0] : nullptr}) {
          if (on == nullptr) continue;
          sendBytes(*on, bytesOf(eager(job, n)));
          sendBytes(*on, payloadOf(n + 4));
        }
      }
      // Connection 1 carried kFrames frames: acknowledged after kAckEvery of them.
      const net::Deadline deadline(std::chrono::seconds(10));
      FrameHeader ack{};
      do {
        c[1].recvAll(&ack, sizeof ack, deadline);
        expect(ack.kind == FrameKind::Ack, "rank 1 sent a " + std::string(frameKindName(ack.kind)) + " frame");
      } while (ack.seq < kAckEvery);
      expect(ack.seq <= kFrames,
             "connection 1 acknowledged " + std::to_string(ack.seq) + " frames of " + std::to_string(kFrames));
      oob.barrier();
      return;
    }
    auto t = transport::createTcpTransport(optionsFor(oob, jobKey));
    std::vector<std::vector<std::byte>> in(kFrames, std::vector<std::byte>(kBytes));
    std::vector<Request> receives;
    for (uint64_t n = 1; n <= kFrames; ++n) receives.push_back(makeRequest(0, n + 4, in[n - 1].data(), kBytes));
    for (Request& receive : receives) t->irecv(receive);
    oob.barrier();
    drive(*t, {&receives[0]});
    expect(in[0] == payloadOf(5), "frame 1 arrived wrong");
    std::fill(in[0].begin(), in[0].end(), std::byte{0});
    oob.barrier();
    std::vector<Request*> rest;
    for (size_t i = 1; i < receives.size(); ++i) rest.push_back(&receives[i]);
    drive(*t, rest);
    for (uint64_t n = 2; n <= kFrames; ++n)
      expect(in[n - 1] == payloadOf(n + 4), "frame " + std::to_string(n) + " arrived wrong");
    expect(std::all_of(in[0].begin(), in[0].end(), [](std::byte b) { return b == std::byte{0}; }),
           "the rest of the cut copy of frame 1 was written into its completed receive");
    oob.barrier();
  }));
}
