// Encryption of trnccl's own sockets (TLS 1.3, pre-shared key): a wrong key is
// refused, a tampered record is a clear error naming the peer, a replayed
// greeting is refused, the job's secret never crosses the wire in clear, and
// a collective over the tcp transport sums right with encryption on. Bytes on
// the wire are watched (and changed) by a relay between the two ends.
#include <poll.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/encryption.h"
#include "base/error.h"
#include "base/socket.h"
#include "base/tls.h"
#include "core/bootstrap.h"
#include "tests/support/scoped_env.h"
#include "trnccl/trnccl.h"

using namespace trnccl;
using namespace std::chrono_literals;

namespace {

constexpr std::chrono::milliseconds kTimeout = 10s;

std::vector<uint8_t> keyOf(uint8_t seed) {
  std::vector<uint8_t> key(32);
  for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<uint8_t>(seed * 31 + i);
  return key;
}

std::shared_ptr<const net::TlsContext> contextOf(uint8_t seed) {
  return std::make_shared<const net::TlsContext>(encryption::deriveTlsKey(keyOf(seed)));
}

net::SocketAddress loopback() { return net::SocketAddress::parse("127.0.0.1:0"); }

// Turns encryption off again when a test ends, whatever it set.
struct EncryptionOffAfter {
  ~EncryptionOffAfter() { encryption::setKey({}); }
};

// Forwards one connection from its listening port to `target` both ways,
// keeping what the client sent; flips a bit of the next client bytes it
// forwards once `tamper` is set.
class Relay {
 public:
  explicit Relay(const net::SocketAddress& target)
      : listener_(net::Socket::listen(loopback())), target_(target), thread_([this] { run(); }) {}
  ~Relay() {
    stop_ = true;
    thread_.join();
  }
  net::SocketAddress address() const { return listener_.localAddress(); }
  std::vector<uint8_t> clientBytes() {
    std::lock_guard lock(mutex_);
    return captured_;
  }
  std::atomic<bool> tamper{false};

 private:
  void run() {
    try {
      const net::Deadline deadline(kTimeout);
      net::Socket client = listener_.accept(deadline);
      net::Socket server = net::Socket::connect(target_, deadline);
      std::vector<uint8_t> buffer(1 << 16);
      while (!stop_) {
        pollfd fds[] = {{client.fd(), POLLIN, 0}, {server.fd(), POLLIN, 0}};
        if (::poll(fds, 2, 20) <= 0) continue;
        if (fds[0].revents != 0) {
          const size_t got = client.recvSome(buffer.data(), buffer.size());
          if (got > 0 && tamper.exchange(false)) buffer[got - 1] ^= 0x01;
          {
            std::lock_guard lock(mutex_);
            captured_.insert(captured_.end(), buffer.begin(), buffer.begin() + static_cast<ptrdiff_t>(got));
          }
          server.sendAll(buffer.data(), got, deadline);
        }
        if (fds[1].revents != 0) {
          const size_t got = server.recvSome(buffer.data(), buffer.size());
          client.sendAll(buffer.data(), got, deadline);
        }
      }
    } catch (const std::exception&) {
      // Either end left: the relay's work is done.
    }
  }

  net::Socket listener_;
  net::SocketAddress target_;
  std::mutex mutex_;
  std::vector<uint8_t> captured_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

bool contains(const std::vector<uint8_t>& haystack, const uint8_t* needle, size_t bytes) {
  return std::search(haystack.begin(), haystack.end(), needle, needle + bytes) != haystack.end();
}

// A TLS client connected to `address` and the server end accepted from `listener`.
struct Pair {
  net::Socket client;
  net::Socket server;
};

Pair connectPair(net::Socket& listener, const net::SocketAddress& address,
                 std::shared_ptr<const net::TlsContext> clientTls, std::shared_ptr<const net::TlsContext> serverTls) {
  const net::Deadline deadline(kTimeout);
  Pair pair;
  pair.client = net::Socket::connect(address, deadline, "test client");
  pair.client.startTls(std::move(clientTls), net::TlsRole::Client);
  pair.server = listener.accept(deadline);
  pair.server.setPeerName("test server's client");
  pair.server.startTls(std::move(serverTls), net::TlsRole::Server);
  return pair;
}

// Sends `message` from the client while the server receives it (the
// handshake needs both); returns what the server got, or throws its error.
std::string exchange(Pair& pair, const std::string& message, std::string* clientError = nullptr) {
  std::thread sender([&] {
    try {
      pair.client.sendAll(message.data(), message.size(), net::Deadline(kTimeout));
    } catch (const Error& e) {
      if (clientError) *clientError = e.what();
    }
  });
  std::string received(message.size(), '\0');
  try {
    pair.server.recvAll(received.data(), received.size(), net::Deadline(kTimeout));
  } catch (...) {
    pair.server = net::Socket();  // the client's handshake ends too
    sender.join();
    throw;
  }
  sender.join();
  return received;
}

}  // namespace

TEST_CASE("encryption: the same key on both ends carries data, a wrong key is refused naming the peer",
          "[encryption]") {
  net::Socket listener = net::Socket::listen(loopback());
  Pair good = connectPair(listener, listener.localAddress(), contextOf(1), contextOf(1));
  CHECK(exchange(good, "all-reduce me") == "all-reduce me");
  CHECK(good.client.encrypted());

  Pair bad = connectPair(listener, listener.localAddress(), contextOf(1), contextOf(2));
  std::string clientError;
  try {
    exchange(bad, "should never arrive", &clientError);
    FAIL("the server accepted a client with another key");
  } catch (const Error& e) {
    CHECK(e.code() == trncclRemoteError);
    CHECK_THAT(e.what(), Catch::Contains("TLS handshake with test server's client"));
    CHECK_THAT(e.what(), Catch::Contains("same encryption key"));
  }
  CHECK_THAT(clientError, Catch::Contains("test client"));
}

TEST_CASE("encryption: a record changed on the wire is an error naming the peer, never data", "[encryption]") {
  net::Socket listener = net::Socket::listen(loopback());
  Relay relay(listener.localAddress());
  Pair pair = connectPair(listener, relay.address(), contextOf(3), contextOf(3));
  CHECK(exchange(pair, "first, untouched") == "first, untouched");
  relay.tamper = true;
  try {
    const std::string got = exchange(pair, "second, tampered with");
    FAIL("a tampered record was delivered as '" << got << "'");
  } catch (const Error& e) {
    CHECK(e.code() == trncclRemoteError);
    CHECK(pair.server.fd() < 0);  // exchange() closed it after the failure
    CHECK_THAT(e.what(), Catch::Contains("failed authentication"));
    CHECK_THAT(e.what(), Catch::Contains("test server's client"));
  }
}

TEST_CASE("encryption: a recorded greeting replayed on a new connection is refused", "[encryption]") {
  net::Socket listener = net::Socket::listen(loopback());
  std::vector<uint8_t> recording;
  {
    Relay relay(listener.localAddress());
    Pair pair = connectPair(listener, relay.address(), contextOf(4), contextOf(4));
    CHECK(exchange(pair, "the job's greeting") == "the job's greeting");
    recording = relay.clientBytes();
  }
  REQUIRE(recording.size() > 100);
  const net::Deadline deadline(kTimeout);
  net::Socket replayer = net::Socket::connect(listener.localAddress(), deadline, "replayer");
  net::Socket server = listener.accept(deadline);
  server.setPeerName("replayer");
  server.startTls(contextOf(4), net::TlsRole::Server);
  replayer.sendAll(recording.data(), recording.size(), deadline);
  std::string received(18, '\0');
  try {
    server.recvAll(received.data(), received.size(), deadline);
    FAIL("a replayed greeting was accepted, delivering '" << received << "'");
  } catch (const Error& e) {
    CHECK(server.tlsFailed());
    CHECK_THAT(e.what(), Catch::Contains("replayer"));
  }
}

TEST_CASE("encryption: the job's secret crosses the wire in clear only with encryption off", "[encryption]") {
  EncryptionOffAfter off;
  const bool encrypted = GENERATE(false, true);
  CAPTURE(encrypted);
  const std::vector<uint8_t> key = keyOf(5);
  encryption::setKey(encrypted ? std::span<const uint8_t>(key) : std::span<const uint8_t>());
  const trncclUniqueId id = core::createUniqueId(kTimeout);
  core::RendezvousInfo info = core::decodeUniqueId(id);
  CHECK(info.encrypted == encrypted);
  Relay relay(info.root);
  core::RendezvousInfo relayed = info;
  relayed.root = relay.address();
  auto bootstrap = core::Bootstrap::connect(core::encodeUniqueId(relayed), 0, 1, kTimeout);
  REQUIRE(bootstrap);
  const std::vector<uint8_t> wire = relay.clientBytes();
  REQUIRE(wire.size() > info.secret.size());
  CHECK(contains(wire, info.secret.data(), info.secret.size()) == !encrypted);
}

TEST_CASE("encryption: a process whose setting differs from the unique id's is refused clearly", "[encryption]") {
  EncryptionOffAfter off;
  const std::vector<uint8_t> key = keyOf(6);
  encryption::setKey(key);
  const trncclUniqueId id = core::createUniqueId(2s);
  encryption::setKey({});
  try {
    core::Bootstrap::connect(id, 0, 1, 2s);
    FAIL("a rank without a key joined an encrypted job");
  } catch (const Error& e) {
    CHECK(e.code() == trncclInvalidUsage);
    CHECK_THAT(e.what(), Catch::Contains("trncclSetEncryption"));
  }
}

TEST_CASE("trncclSetEncryption and TRNCCL_ENCRYPTION_KEY_FILE check what they are given", "[encryption]") {
  EncryptionOffAfter off;
  const std::vector<uint8_t> key = keyOf(7);
  CHECK(trncclSetEncryption(nullptr, 32) == trncclInvalidArgument);
  CHECK_THAT(trncclGetLastError(nullptr), Catch::Contains("'key'"));
  CHECK(trncclSetEncryption(key.data(), 8) == trncclInvalidArgument);
  CHECK_THAT(trncclGetLastError(nullptr), Catch::Contains("'keyBytes'"));
  CHECK(trncclSetEncryption(key.data(), 0) == trncclInvalidArgument);
  CHECK(trncclSetEncryption(key.data(), key.size()) == trncclSuccess);
  CHECK(encryption::context() != nullptr);
  CHECK(trncclSetEncryption(nullptr, 0) == trncclSuccess);
  CHECK(encryption::context() == nullptr);

  const std::string path = "/tmp/trnccl-test-key-" + std::to_string(::getpid());
  const std::string hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
  std::ofstream(path) << hex << "\n";
  ::chmod(path.c_str(), 0644);
  try {
    encryption::readKeyFile(path, "TRNCCL_ENCRYPTION_KEY_FILE");
    FAIL("a key file others may read was taken");
  } catch (const Error& e) {
    CHECK(e.code() == trncclInvalidArgument);
    CHECK_THAT(e.what(), Catch::Contains("TRNCCL_ENCRYPTION_KEY_FILE") && Catch::Contains("chmod 600"));
    CHECK_THAT(e.what(), !Catch::Contains(hex.substr(0, 8)));
  }
  ::chmod(path.c_str(), 0600);
  CHECK(encryption::readKeyFile(path, "TRNCCL_ENCRYPTION_KEY_FILE").size() == 32);
  std::ofstream(path) << "not a key at all\n";
  CHECK_THROWS_WITH(encryption::readKeyFile(path, "TRNCCL_ENCRYPTION_KEY_FILE"),
                    Catch::Contains("does not hold a key") && !Catch::Contains("not a key at all"));
  std::remove(path.c_str());
}

TEST_CASE("encryption: all-reduce over the tcp transport sums right with encryption on", "[encryption]") {
  EncryptionOffAfter off;
  const std::vector<uint8_t> key = keyOf(8);
  REQUIRE(trncclSetEncryption(key.data(), key.size()) == trncclSuccess);
  constexpr int kRanks = 3;
  constexpr size_t kCount = (1 << 20) + 3;  // rendezvous-sized, uneven
  trncclUniqueId id;
  REQUIRE(trncclGetUniqueId(&id) == trncclSuccess);
  auto input = [](int rank, size_t i) {
    return static_cast<float>((rank + 1) * 0.25 + static_cast<double>(i % 1000) / 7);
  };
  std::vector<std::vector<float>> results(kRanks);
  std::vector<std::string> errors(kRanks);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < kRanks; ++rank) {
    threads.emplace_back([&, rank] {
      trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
      config.transport = "tcp";
      trncclComm_t comm = nullptr;
      if (trncclCommInitRankConfig(&comm, kRanks, id, rank, &config) != trncclSuccess) {
        errors[rank] = std::string("init: ") + trncclGetLastError(nullptr);
        return;
      }
      std::vector<float> data(kCount);
      for (size_t i = 0; i < kCount; ++i) data[i] = input(rank, i);
      if (trncclAllReduce(data.data(), data.data(), kCount, trncclFloat32, trncclSum, comm, nullptr) != trncclSuccess)
        errors[rank] = std::string("all-reduce: ") + trncclGetLastError(comm);
      results[rank] = std::move(data);
      trncclCommDestroy(comm);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int rank = 0; rank < kRanks; ++rank) {
    INFO("rank " << rank << ": " << errors[rank]);
    REQUIRE(errors[rank].empty());
    size_t wrong = 0;
    for (size_t i = 0; i < kCount; ++i) {
      double reference = 0;
      for (int r = 0; r < kRanks; ++r) reference += static_cast<double>(input(r, i));
      if (std::abs(results[rank][i] - reference) > 1e-5 * std::max(1.0, std::abs(reference))) ++wrong;
    }
    CHECK(wrong == 0);
    CHECK(results[rank] == results[0]);  // bit for bit on every rank
  }
}
