#include <stdlib.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "base/socket.h"
#include "tests/support/scoped_env.h"

using namespace trnccl;
using namespace trnccl::net;
using namespace std::chrono_literals;
using Names = std::vector<std::string>;
using trnccl::test::ScopedEnv;

namespace {

// A connected pair over loopback: {client side, server side}.
std::pair<Socket, Socket> connectedPair(const char* host) {
  Socket listener = Socket::listen(SocketAddress::parse(std::string(host) + ":0"));
  Deadline deadline(5s);
  Socket client = Socket::connect(listener.localAddress(), deadline);
  Socket server = listener.accept(deadline);
  return {std::move(client), std::move(server)};
}

// A loopback port nobody listens on (for a moment).
SocketAddress closedPort() { return Socket::listen(SocketAddress::parse("127.0.0.1:0")).localAddress(); }

template <class Body>
Error errorFrom(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e;
  }
  FAIL("expected a trnccl::Error");
  return Error(trncclSuccess, "");
}

}  // namespace

TEST_CASE("matchInterfaces: prefix lists", "[socket]") {
  Names names{"lo", "eth0", "eth10", "ib0", "docker0", "enp1s0"};
  CHECK(matchInterfaces("eth", names) == Names{"eth0", "eth10"});
  CHECK(matchInterfaces("eth,ib", names) == Names{"eth0", "eth10", "ib0"});
  CHECK(matchInterfaces("ib,eth", names) == Names{"eth0", "eth10", "ib0"});
  CHECK(matchInterfaces("eth0", names) == Names{"eth0"});
  CHECK(matchInterfaces("e", names) == Names{"eth0", "eth10", "enp1s0"});
  CHECK(matchInterfaces("wlan", names).empty());
  CHECK(matchInterfaces("eth,,ib,", names) == Names{"eth0", "eth10", "ib0"});
}

TEST_CASE("matchInterfaces: exclusion", "[socket]") {
  Names names{"lo", "eth0", "eth10", "ib0", "docker0", "enp1s0"};
  CHECK(matchInterfaces("^docker,lo", names) == Names{"eth0", "eth10", "ib0", "enp1s0"});
  CHECK(matchInterfaces("^eth", names) == Names{"lo", "ib0", "docker0", "enp1s0"});
  CHECK(matchInterfaces("^wlan", names) == names);
}

TEST_CASE("matchInterfaces: exact names", "[socket]") {
  Names names{"lo", "eth0", "eth10", "ib0"};
  CHECK(matchInterfaces("=eth0", names) == Names{"eth0"});
  CHECK(matchInterfaces("=eth", names).empty());
  CHECK(matchInterfaces("=eth1,ib0", names) == Names{"ib0"});
  CHECK(matchInterfaces("^=eth0", names) == Names{"lo", "eth10", "ib0"});
  CHECK(matchInterfaces("^=eth,lo", names) == Names{"eth0", "eth10", "ib0"});
}

TEST_CASE("SocketAddress parses and prints and round-trips the wire form", "[socket]") {
  SocketAddress v4 = SocketAddress::parse("127.0.0.1:4321");
  CHECK(v4.family() == AF_INET);
  CHECK(v4.port() == 4321);
  CHECK(v4.toString() == "127.0.0.1:4321");
  CHECK(v4.withPort(7).toString() == "127.0.0.1:7");

  SocketAddress v6 = SocketAddress::parse("[::1]:80");
  CHECK(v6.family() == AF_INET6);
  CHECK(v6.toString() == "[::1]:80");
  CHECK(SocketAddress::parse("[fe80::1%3]:9").toString() == "[fe80::1%3]:9");
  CHECK(SocketAddress::parse("[fe80::1%3]:9").isLinkLocal());
  CHECK_FALSE(v6.isLinkLocal());

  for (const SocketAddress& address : {v4, v6, SocketAddress::parse("[fe80::1%3]:9")}) {
    auto back = SocketAddress::fromWire(address.toWire());
    REQUIRE(back);
    CHECK(back->toString() == address.toString());
  }
  WireAddress bad = v4.toWire();
  bad.ipVersion = 5;
  CHECK_FALSE(SocketAddress::fromWire(bad));
  // Found by fuzz_unique_id: bytes an address does not use were ignored, so a
  // corrupted unique id passed as a valid one.
  for (auto corrupt : {+[](WireAddress& w) { w.ip[4] = 0xfc; }, +[](WireAddress& w) { w.scopeId = 3; },
                       +[](WireAddress& w) { w.reserved = 1; }}) {
    WireAddress stray = v4.toWire();
    corrupt(stray);
    CHECK_FALSE(SocketAddress::fromWire(stray));
  }

  for (const char* text :
       {"", "127.0.0.1", "127.0.0.1:", "127.0.0.1:70000", "1.2.3:4", "::1:80", "[::1]:x", "host:80", "127.0.0.1:-1"}) {
    INFO(text);
    CHECK(errorFrom([&] { SocketAddress::parse(text); }).code() == trncclInvalidArgument);
  }
}

TEST_CASE("selectInterface follows TRNCCL_SOCKET_IFNAME", "[socket]") {
  SECTION("unset: loopback, IPv4 preferred") {
    unsetenv("TRNCCL_SOCKET_IFNAME");
    Interface chosen = selectInterface();
    CHECK(chosen.loopback);
    CHECK(chosen.address.toString() == "127.0.0.1:0");
  }
  SECTION("IPv6 when asked for") {
    ScopedEnv env("TRNCCL_SOCKET_IFNAME", "=lo");
    bool hasV6 = false;
    for (const Interface& i : listInterfaces()) hasV6 |= i.name == "lo" && i.address.family() == AF_INET6;
    if (hasV6) CHECK(selectInterface(AF_INET6).address.toString() == "[::1]:0");
  }
  SECTION("exclusion never picks an excluded interface") {
    ScopedEnv env("TRNCCL_SOCKET_IFNAME", "^lo");
    try {
      CHECK(selectInterface().name.rfind("lo", 0) != 0);
    } catch (const Error& e) {
      CHECK(e.code() == trncclInvalidArgument);  // a host with loopback only
    }
  }
  SECTION("nothing matches: the error names the variable, the value and what exists") {
    ScopedEnv env("TRNCCL_SOCKET_IFNAME", "=nosuchif0");
    Error e = errorFrom([] { selectInterface(); });
    CHECK(e.code() == trncclInvalidArgument);
    std::string message = e.what();
    CHECK(message.find("TRNCCL_SOCKET_IFNAME") != std::string::npos);
    CHECK(message.find("=nosuchif0") != std::string::npos);
    CHECK(message.find("lo") != std::string::npos);
  }
}

TEST_CASE("sockets move data both ways over IPv4 and IPv6", "[socket]") {
  const char* host = GENERATE("127.0.0.1", "[::1]");
  INFO(host);
  auto [client, server] = connectedPair(host);
  // Larger than the socket buffers, so both ends must really wait for each other.
  std::vector<char> sent(4 << 20);
  for (size_t i = 0; i < sent.size(); ++i) sent[i] = static_cast<char>(i * 7 + i / 4096);
  std::vector<char> received(sent.size());
  std::thread sender([&] { client.sendAll(sent.data(), sent.size(), Deadline(10s)); });
  server.recvAll(received.data(), received.size(), Deadline(10s));
  sender.join();
  CHECK(received == sent);

  uint64_t reply = 0x0123456789abcdef, echoed = 0;
  server.sendAll(&reply, sizeof(reply), Deadline(1s));
  client.recvAll(&echoed, sizeof(echoed), Deadline(1s));
  CHECK(echoed == reply);
}

TEST_CASE("connect retries until the listener is up", "[socket]") {
  SocketAddress address = closedPort();
  std::optional<Socket> listener;
  std::thread late([&] {
    std::this_thread::sleep_for(200ms);
    listener = Socket::listen(address);
  });
  auto start = std::chrono::steady_clock::now();
  Socket client = Socket::connect(address, Deadline(5s));
  late.join();
  CHECK(std::chrono::steady_clock::now() - start >= 150ms);
  uint32_t value = 42, got = 0;
  client.sendAll(&value, sizeof(value), Deadline(1s));
  Socket server = listener->accept(Deadline(1s));
  server.recvAll(&got, sizeof(got), Deadline(1s));
  CHECK(got == 42);
}

TEST_CASE("connect to nobody times out naming the address", "[socket]") {
  SocketAddress address = closedPort();
  Error e = errorFrom([&] { Socket::connect(address, Deadline(300ms)); });
  CHECK(e.code() == trncclTimeout);
  CHECK(std::string(e.what()).find(address.toString()) != std::string::npos);
}

TEST_CASE("waits time out and a closed peer is a RemoteError naming it", "[socket]") {
  auto [client, server] = connectedPair("127.0.0.1");
  server.setPeerName("rank 5");
  char byte = 0;

  Error timeout = errorFrom([&] { server.recvAll(&byte, 1, Deadline(100ms)); });
  CHECK(timeout.code() == trncclTimeout);
  CHECK(std::string(timeout.what()).find("rank 5") != std::string::npos);

  client = Socket();
  Error closed = errorFrom([&] { server.recvAll(&byte, 1, Deadline(1s)); });
  CHECK(closed.code() == trncclRemoteError);
  CHECK(std::string(closed.what()).find("rank 5") != std::string::npos);

  Socket listener = Socket::listen(SocketAddress::parse("127.0.0.1:0"));
  CHECK(errorFrom([&] { listener.accept(Deadline(100ms)); }).code() == trncclTimeout);
}

TEST_CASE("an abort ends a blocked receive promptly", "[socket]") {
  auto [client, server] = connectedPair("127.0.0.1");
  std::atomic<bool> abort{false};
  std::thread aborter([&] {
    std::this_thread::sleep_for(200ms);
    abort = true;
  });
  auto start = std::chrono::steady_clock::now();
  char byte = 0;
  Error e = errorFrom([&] { server.recvAll(&byte, 1, Deadline(60s, &abort)); });
  auto waited = std::chrono::steady_clock::now() - start;
  aborter.join();
  CHECK(e.code() == trncclInvalidUsage);
  CHECK(std::string(e.what()).find("aborted") != std::string::npos);
  CHECK(waited < 2s);
}
