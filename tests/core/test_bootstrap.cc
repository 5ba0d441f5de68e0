#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <latch>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "core/bootstrap.h"
#include "core/bootstrap_protocol.h"
#include "tests/support/open_descriptors.h"
#include "tests/support/outsider.h"
#include "tests/support/scoped_env.h"

using namespace trnccl;
using namespace trnccl::core;
using namespace std::chrono_literals;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {

constexpr milliseconds kTimeout = 20s;

uint8_t pattern(int rank, size_t i) { return static_cast<uint8_t>(rank * 37 + i * 11 + 1); }

// Runs body(i) on `count` threads and returns what each one threw. Catch2
// assertions are not thread-safe, so bodies record and the test checks after.
template <class Body>
std::vector<std::optional<Error>> onThreads(int count, Body body) {
  std::vector<std::optional<Error>> errors(count);
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i) {
    threads.emplace_back([&, i] {
      try {
        body(i);
      } catch (const Error& e) {
        errors[i] = e;
      } catch (const std::exception& e) {
        errors[i] = Error(trncclInternalError, std::string("unexpected: ") + e.what());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return errors;
}

void checkAllSucceeded(const std::vector<std::optional<Error>>& errors) {
  for (size_t i = 0; i < errors.size(); ++i) {
    INFO("thread " << i << ": " << (errors[i] ? errors[i]->what() : "ok"));
    CHECK_FALSE(errors[i].has_value());
  }
}

void checkAllFailed(const std::vector<std::optional<Error>>& errors, trncclResult_t code, const std::string& needle) {
  for (size_t i = 0; i < errors.size(); ++i) {
    INFO("thread " << i);
    REQUIRE(errors[i].has_value());
    INFO(errors[i]->what());
    CHECK(errors[i]->code() == code);
    CHECK(std::string(errors[i]->what()).find(needle) != std::string::npos);
  }
}

// How many bytes of `gathered` (nranks blocks of `bytes`) differ from
// pattern(rank, i); all of them when its size is wrong.
size_t countWrong(const std::vector<uint8_t>& gathered, int nranks, size_t bytes) {
  if (gathered.size() != nranks * bytes) return nranks * bytes;
  size_t wrong = 0;
  for (int rank = 0; rank < nranks; ++rank)
    for (size_t i = 0; i < bytes; ++i) wrong += gathered[rank * bytes + i] != pattern(rank, i);
  return wrong;
}

std::vector<uint8_t> gatherPattern(Bootstrap& bootstrap, size_t bytes) {
  std::vector<uint8_t> all(bootstrap.size() * bytes, 0xee);
  for (size_t i = 0; i < bytes; ++i) all[bootstrap.rank() * bytes + i] = pattern(bootstrap.rank(), i);
  bootstrap.allGather(all.data(), bytes);
  return all;
}

// Counts `latch` down once when the scope ends, however it ends.
struct CountDownOnExit {
  std::latch& latch;
  ~CountDownOnExit() { latch.count_down(); }
};

// A raw connection that is not a trnccl rank, and whether the far end closed it.
net::Socket openRaw(const net::SocketAddress& address) { return net::Socket::connect(address, net::Deadline(5s)); }
bool closedByPeer(net::Socket& socket) {
  char byte;
  try {
    socket.recvAll(&byte, 1, net::Deadline(5s));
  } catch (const Error& e) {
    return e.code() == trncclRemoteError;
  }
  return false;
}

void sendGarbage(net::Socket& socket) {
  const char text[] = "GET / HTTP/1.0\r\n\r\n and then some more bytes than a handshake has ...";
  socket.sendAll(text, sizeof(text), net::Deadline(5s));
}

}  // namespace

TEST_CASE("ranks as threads: allGather barrier and broadcast", "[bootstrap]") {
  const int nranks = GENERATE(1, 2, 3, 8, 16);
  INFO(nranks << " ranks");
  constexpr size_t kBytes = 300;
  trncclUniqueId id = createUniqueId(kTimeout);
  std::vector<std::vector<uint8_t>> gathered(nranks), broadcasts(nranks);
  std::atomic<int> entered{0};
  std::vector<int> enteredAfterBarrier(nranks);

  auto errors = onThreads(nranks, [&](int rank) {
    auto bootstrap = Bootstrap::connect(id, rank, nranks, kTimeout);
    if (bootstrap->rank() != rank || bootstrap->size() != nranks) throw Error(trncclInternalError, "identity");
    gathered[rank] = gatherPattern(*bootstrap, kBytes);

    // The last rank is late: nobody may leave the barrier before it enters.
    if (rank == nranks - 1) std::this_thread::sleep_for(50ms);
    ++entered;
    bootstrap->barrier();
    enteredAfterBarrier[rank] = entered.load();

    for (int root = 0; root < nranks; ++root) {
      std::vector<uint8_t> data(64, 0);
      if (rank == root)
        for (size_t i = 0; i < data.size(); ++i) data[i] = pattern(root + 100, i);
      bootstrap->broadcast(data.data(), data.size(), root);
      broadcasts[rank].insert(broadcasts[rank].end(), data.begin(), data.end());
    }
  });
  checkAllSucceeded(errors);

  for (int rank = 0; rank < nranks; ++rank) {
    INFO("rank " << rank);
    CHECK(countWrong(gathered[rank], nranks, kBytes) == 0);
    CHECK(enteredAfterBarrier[rank] == nranks);
    size_t wrong = 0;
    for (int root = 0; root < nranks; ++root)
      for (size_t i = 0; i < 64; ++i) wrong += broadcasts[rank][root * 64 + i] != pattern(root + 100, i);
    CHECK(wrong == 0);
  }
}

TEST_CASE("send/recv: tags interleave and each tag stays in order", "[bootstrap]") {
  const int nranks = GENERATE(2, 3, 8);
  INFO(nranks << " ranks");
  trncclUniqueId id = createUniqueId(kTimeout);
  const int tags[] = {1, 2, 3};
  auto size = [](int tag, int k) -> size_t { return tag == 3 && k == 0 ? 0 : 4 * tag + k + 8; };
  auto fill = [](int from, int to, int tag, int k, size_t i) {
    return static_cast<uint8_t>(from * 131 + to * 17 + tag * 7 + k * 3 + i);
  };
  std::vector<size_t> wrong(nranks);

  auto errors = onThreads(nranks, [&](int rank) {
    auto bootstrap = Bootstrap::connect(id, rank, nranks, kTimeout);
    for (int k = 0; k < 3; ++k)
      for (int tag : tags)
        for (int peer = 0; peer < nranks; ++peer) {
          if (peer == rank) continue;
          std::vector<uint8_t> message(size(tag, k));
          for (size_t i = 0; i < message.size(); ++i) message[i] = fill(rank, peer, tag, k, i);
          bootstrap->send(peer, tag, message.data(), message.size());
        }
    // Receive in another order than sent: by peer (descending), then tag 3, 1, 2.
    for (int peer = nranks - 1; peer >= 0; --peer) {
      if (peer == rank) continue;
      for (int tag : {3, 1, 2})
        for (int k = 0; k < 3; ++k) {
          std::vector<uint8_t> message(size(tag, k), 0xee);
          bootstrap->recv(peer, tag, message.data(), message.size());
          for (size_t i = 0; i < message.size(); ++i) wrong[rank] += message[i] != fill(peer, rank, tag, k, i);
        }
    }
    bootstrap->barrier();
  });
  checkAllSucceeded(errors);
  for (int rank = 0; rank < nranks; ++rank) {
    INFO("rank " << rank);
    CHECK(wrong[rank] == 0);
  }
}

TEST_CASE("send/recv: a large message arrives whole and a wrong size is InvalidUsage", "[bootstrap]") {
  trncclUniqueId id = createUniqueId(kTimeout);
  std::vector<uint8_t> big(8 << 20);
  for (size_t i = 0; i < big.size(); ++i) big[i] = pattern(5, i);
  std::vector<uint8_t> received(big.size());
  std::optional<Error> mismatch;

  auto errors = onThreads(2, [&](int rank) {
    auto bootstrap = Bootstrap::connect(id, rank, 2, kTimeout);
    uint64_t eight = 8;
    if (rank == 0) {
      bootstrap->send(1, 9, big.data(), big.size());
      bootstrap->send(1, 4, &eight, sizeof(eight));
    } else {
      bootstrap->recv(0, 9, received.data(), received.size());
      uint32_t four;
      try {
        bootstrap->recv(0, 4, &four, sizeof(four));
      } catch (const Error& e) {
        mismatch = e;
      }
    }
  });
  checkAllSucceeded(errors);
  CHECK(received == big);
  REQUIRE(mismatch);
  CHECK(mismatch->code() == trncclInvalidUsage);
  CHECK(std::string(mismatch->what()).find("rank 0") != std::string::npos);
}

TEST_CASE("garbage and a wrong secret at the root are refused and the job completes", "[bootstrap]") {
  trncclUniqueId id = createUniqueId(kTimeout);
  RendezvousInfo info = decodeUniqueId(id);

  net::Socket garbage = openRaw(info.root);
  sendGarbage(garbage);
  net::Socket zeros = openRaw(info.root);
  std::vector<char> zero(200, 0);
  zeros.sendAll(zero.data(), zero.size(), net::Deadline(5s));
  net::Socket silent = openRaw(info.root);  // says nothing, stays open

  RendezvousInfo forged = info;
  forged.secret[3] ^= 0x40;
  auto forgedErrors = onThreads(1, [&](int) { Bootstrap::connect(encodeUniqueId(forged), 0, 3, 5s); });
  checkAllFailed(forgedErrors, trncclRemoteError, "rendezvous root");
  CHECK(closedByPeer(garbage));
  CHECK(closedByPeer(zeros));

  std::vector<std::vector<uint8_t>> gathered(3);
  auto errors = onThreads(3, [&](int rank) {
    auto bootstrap = Bootstrap::connect(id, rank, 3, kTimeout);
    gathered[rank] = gatherPattern(*bootstrap, 16);
  });
  checkAllSucceeded(errors);
  for (const auto& all : gathered) CHECK(countWrong(all, 3, 16) == 0);
}

TEST_CASE("garbage sent to a rank is refused and the job goes on", "[bootstrap]") {
  constexpr int kRanks = 3, kVictim = 1;
  trncclUniqueId id = createUniqueId(kTimeout);
  std::vector<std::string> addresses(kRanks);
  std::latch connected(kRanks), attacked(1), checked(1);
  std::vector<std::vector<uint8_t>> gathered(kRanks);
  uint64_t received = 0;
  bool garbageClosed = false, zerosClosed = false;

  // Threads 0..2 are ranks; thread 3 attacks rank 1 between connect and
  // allGather, and sees its connections closed while the job still runs.
  auto errors = onThreads(kRanks + 1, [&](int thread) {
    if (thread == kRanks) {
      CountDownOnExit done{checked};
      connected.wait();
      net::Socket garbage, zeros, silent;  // silent says nothing and stays open
      {
        CountDownOnExit release{attacked};
        net::SocketAddress victim = net::SocketAddress::parse(addresses[kVictim]);
        garbage = openRaw(victim);
        sendGarbage(garbage);
        zeros = openRaw(victim);
        std::vector<char> zero(100, 0);
        zeros.sendAll(zero.data(), zero.size(), net::Deadline(5s));
        silent = openRaw(victim);
      }
      garbageClosed = closedByPeer(garbage);
      zerosClosed = closedByPeer(zeros);
      return;
    }
    std::unique_ptr<Bootstrap> bootstrap;
    {
      CountDownOnExit arrived{connected};
      bootstrap = Bootstrap::connect(id, thread, kRanks, kTimeout);
      addresses[thread] = bootstrap->address();
    }
    attacked.wait();
    gathered[thread] = gatherPattern(*bootstrap, 40);
    uint64_t value = 0xfeedface;
    if (thread == 0) bootstrap->send(kVictim, 11, &value, sizeof(value));
    if (thread == kVictim) bootstrap->recv(0, 11, &received, sizeof(received));
    checked.wait();
    bootstrap->barrier();
  });
  checkAllSucceeded(errors);
  for (const auto& all : gathered) CHECK(countWrong(all, kRanks, 40) == 0);
  CHECK(received == 0xfeedface);
  CHECK(garbageClosed);
  CHECK(zerosClosed);
}

// ---- Silent and trickling outsiders --------------------------------------------

namespace {

// The greeting limit these tests set, and how long they give trnccl to drop
// an outsider: generous, for a loaded machine.
constexpr milliseconds kGreetingLimit = 1s;
constexpr milliseconds kDropWithin = 3 * kGreetingLimit;
constexpr milliseconds kTrickleGap = 200ms;

// A hello's first bytes with the right magic, so that they are not refused
// as garbage: only the limit can end a trickle of them.
std::vector<std::byte> helloPrefix() {
  const wire::Hello hello = wire::makeHello(wire::Purpose::JoinRoot, wire::Secret{}, 0, 2);
  const auto* bytes = reinterpret_cast<const std::byte*>(&hello);
  return {bytes, bytes + sizeof(hello)};
}

// What each outsider test sets up and checks last: the limit, the silent
// and the trickling outsider's fates, and no descriptor left open.
struct OutsiderTest {
  test::ScopedEnv limit{"TRNCCL_GREETING_TIMEOUT_MS", std::to_string(kGreetingLimit.count())};
  const int descriptorsBefore = test::openFileDescriptors();
  std::optional<milliseconds> silentDropped, trickleDropped;

  void checkDroppedAndClosed() const {
    CHECK(silentDropped.has_value());
    CHECK(trickleDropped.has_value());
    // Every socket is closed, and the root's thread ends once the ranks left.
    CHECK(test::openFileDescriptorsSettle(descriptorsBefore, 10s) <= descriptorsBefore);
  }
};

}  // namespace

TEST_CASE_METHOD(
    OutsiderTest,
    "bootstrap: silent and trickling outsiders at the root are dropped within the greeting limit and the job completes",
    "[bootstrap]") {
  constexpr int kRanks = 3, kLate = 2, kSilent = kRanks, kTrickler = kRanks + 1;
  std::optional<milliseconds> lateSilentDropped;
  std::vector<std::vector<uint8_t>> gathered(kRanks);
  {
    const trncclUniqueId id = createUniqueId(kTimeout);
    const RendezvousInfo info = decodeUniqueId(id);
    std::latch outsidersDone(2), joined(kRanks), lateOutsiderDone(1);
    // Ranks 0 and 1 wait at the root while the outsiders are there; rank 2
    // comes once they are gone, so the root must drop them mid-rendezvous.
    // Then a silent outsider comes while the root answers status queries.
    auto errors = onThreads(kRanks + 2, [&](int thread) {
      if (thread == kSilent) {
        {
          CountDownOnExit done{outsidersDone};
          net::Socket silent = openRaw(info.root);
          silentDropped = test::closedWhileTrickling(silent, {}, kTrickleGap, kDropWithin);
        }
        CountDownOnExit done{lateOutsiderDone};
        joined.wait();
        net::Socket late = openRaw(info.root);
        lateSilentDropped = test::closedWhileTrickling(late, {}, kTrickleGap, kDropWithin);
        return;
      }
      if (thread == kTrickler) {
        CountDownOnExit done{outsidersDone};
        net::Socket trickler = openRaw(info.root);
        trickleDropped = test::closedWhileTrickling(trickler, helloPrefix(), kTrickleGap, kDropWithin);
        return;
      }
      if (thread == kLate) outsidersDone.wait();
      std::unique_ptr<Bootstrap> bootstrap;
      {
        CountDownOnExit arrived{joined};
        bootstrap = Bootstrap::connect(id, thread, kRanks, kTimeout);
      }
      gathered[thread] = gatherPattern(*bootstrap, 24);
      lateOutsiderDone.wait();  // the root serves status queries while ranks are connected
      bootstrap->barrier();
    });
    checkAllSucceeded(errors);
  }
  for (const auto& all : gathered) CHECK(countWrong(all, kRanks, 24) == 0);
  CHECK(lateSilentDropped.has_value());
  checkDroppedAndClosed();
}

TEST_CASE_METHOD(
    OutsiderTest,
    "bootstrap: silent and trickling outsiders at a rank are dropped within the greeting limit and the job goes on",
    "[bootstrap]") {
  constexpr int kRanks = 3, kVictim = 1, kSilent = kRanks, kTrickler = kRanks + 1;
  std::vector<std::vector<uint8_t>> gathered(kRanks);
  int barriers = 0;
  {
    const trncclUniqueId id = createUniqueId(kTimeout);
    std::vector<std::string> addresses(kRanks);
    std::latch connected(kRanks);
    std::atomic<int> outsidersLeft{2};
    // The ranks run barriers (so the victim reads its listener) until both
    // outsiders have seen their connections end, or long after they should.
    auto errors = onThreads(kRanks + 2, [&](int thread) {
      if (thread >= kRanks) {
        struct Left {
          std::atomic<int>& count;
          ~Left() { --count; }
        } left{outsidersLeft};
        connected.wait();
        net::Socket outsider = openRaw(net::SocketAddress::parse(addresses[kVictim]));
        std::vector<std::byte> trickle = thread == kTrickler ? helloPrefix() : std::vector<std::byte>{};
        (thread == kSilent ? silentDropped : trickleDropped) =
            test::closedWhileTrickling(outsider, trickle, kTrickleGap, kDropWithin);
        return;
      }
      std::unique_ptr<Bootstrap> bootstrap;
      {
        CountDownOnExit arrived{connected};
        bootstrap = Bootstrap::connect(id, thread, kRanks, kTimeout);
        addresses[thread] = bootstrap->address();
      }
      // Every rank runs as many barriers: rank 0 decides when to stop.
      for (bool more = true; more;) {
        bootstrap->barrier();
        if (thread == kVictim) ++barriers;
        uint8_t again = outsidersLeft > 0;
        bootstrap->broadcast(&again, 1, 0);
        more = again != 0;
      }
      gathered[thread] = gatherPattern(*bootstrap, 40);
    });
    checkAllSucceeded(errors);
  }
  for (const auto& all : gathered) CHECK(countWrong(all, kRanks, 40) == 0);
  CHECK(barriers > 0);
  checkDroppedAndClosed();
}

TEST_CASE("ranks that disagree on nranks all get InvalidUsage", "[bootstrap]") {
  trncclUniqueId id = createUniqueId(5s);
  auto errors = onThreads(3, [&](int rank) { Bootstrap::connect(id, rank, rank == 2 ? 4 : 3, 5s); });
  checkAllFailed(errors, trncclInvalidUsage, "disagree on the number of ranks");
}

TEST_CASE("two ranks claiming the same rank all get InvalidUsage", "[bootstrap]") {
  trncclUniqueId id = createUniqueId(5s);
  auto errors = onThreads(3, [&](int thread) { Bootstrap::connect(id, thread == 2 ? 1 : thread, 3, 5s); });
  checkAllFailed(errors, trncclInvalidUsage, "rank 1 was claimed twice");
}

TEST_CASE("a missing rank is a Timeout naming it", "[bootstrap]") {
  trncclUniqueId id = createUniqueId(500ms);
  auto start = Clock::now();
  auto errors = onThreads(3, [&](int rank) { Bootstrap::connect(id, rank, 4, 500ms); });
  auto took = Clock::now() - start;
  checkAllFailed(errors, trncclTimeout, "rank 3 never arrived");
  CHECK(took < 3s);
}

TEST_CASE("a bootstrap timeout names the ranks never heard from and where the others came from", "[bootstrap]") {
  trncclUniqueId id = createUniqueId(500ms);
  // Ranks 1 and 3 of 4 are never started.
  auto errors = onThreads(2, [&](int thread) { Bootstrap::connect(id, thread * 2, 4, 500ms); });
  checkAllFailed(errors, trncclTimeout, "ranks 1, 3 never arrived at the rendezvous root");
  checkAllFailed(errors, trncclTimeout, "2 of 4 arrived: ranks 0, 2 from 127.0.0.1");
}

TEST_CASE("a recv that nobody answers times out naming the peer", "[bootstrap]") {
  trncclUniqueId id = createUniqueId(kTimeout);
  std::latch rank0Done(1);
  auto errors = onThreads(2, [&](int rank) {
    std::optional<CountDownOnExit> release;
    if (rank == 0) release.emplace(rank0Done);
    auto bootstrap = Bootstrap::connect(id, rank, 2, 300ms);
    bootstrap->barrier();
    if (rank == 1) return rank0Done.wait();  // stays connected, sends nothing
    uint32_t value;
    bootstrap->recv(1, 3, &value, sizeof(value));
  });
  CHECK_FALSE(errors[1]);
  checkAllFailed({errors[0]}, trncclTimeout, "waiting for a message from rank 1 (listening at 127.0.0.1:");
}

TEST_CASE("an abort ends blocked calls promptly", "[bootstrap]") {
  std::atomic<bool> abort{false};
  auto abortSoon = [&] {
    std::this_thread::sleep_for(200ms);
    abort = true;
  };

  SECTION("blocked in recv") {
    trncclUniqueId id = createUniqueId(kTimeout);
    std::latch connected(2);
    auto start = Clock::now();
    auto errors = onThreads(3, [&](int thread) {
      if (thread == 2) {
        connected.wait();
        return abortSoon();
      }
      std::unique_ptr<Bootstrap> bootstrap;
      {
        CountDownOnExit arrived{connected};
        bootstrap = Bootstrap::connect(id, thread, 2, 60s, &abort);
      }
      uint32_t value;
      bootstrap->recv(1 - thread, 3, &value, sizeof(value));
    });
    CHECK(Clock::now() - start < 5s);
    CHECK_FALSE(errors[2]);
    checkAllFailed({errors[0], errors[1]}, trncclInvalidUsage, "aborted");
  }

  SECTION("blocked in connect, waiting for the other ranks") {
    trncclUniqueId id = createUniqueId(2s);
    auto start = Clock::now();
    auto errors = onThreads(2, [&](int thread) {
      if (thread == 1) return abortSoon();
      Bootstrap::connect(id, 0, 2, 60s, &abort);
    });
    CHECK(Clock::now() - start < 2s);
    checkAllFailed({errors[0]}, trncclInvalidUsage, "aborted");
  }
}

TEST_CASE("a peer that closes mid-operation is a RemoteError naming it", "[bootstrap]") {
  trncclUniqueId id = createUniqueId(kTimeout);
  auto errors = onThreads(2, [&](int rank) {
    auto bootstrap = Bootstrap::connect(id, rank, 2, kTimeout);
    bootstrap->barrier();
    if (rank == 1) return;  // closes its connections
    uint32_t value;
    bootstrap->recv(1, 3, &value, sizeof(value));
  });
  CHECK_FALSE(errors[1]);
  checkAllFailed({errors[0]}, trncclRemoteError, "rank 1");
}

TEST_CASE("sending to a rank that is gone is a RemoteError naming it", "[bootstrap]") {
  trncclUniqueId id = createUniqueId(kTimeout);
  std::latch rank1Gone(1);
  auto errors = onThreads(2, [&](int rank) {
    if (rank == 1) {
      CountDownOnExit gone{rank1Gone};
      Bootstrap::connect(id, 1, 2, kTimeout);  // and closes everything at once
      return;
    }
    auto bootstrap = Bootstrap::connect(id, 0, 2, kTimeout);
    rank1Gone.wait();
    uint32_t value = 1;
    bootstrap->send(1, 2, &value, sizeof(value));
  });
  CHECK_FALSE(errors[1]);
  checkAllFailed({errors[0]}, trncclRemoteError, "rank 1");
}

TEST_CASE("unique ids carry an IPv4 or IPv6 root and a fresh secret", "[bootstrap]") {
  for (const char* root : {"127.0.0.1:4000", "[::1]:4000", "[fe80::1%2]:9"}) {
    INFO(root);
    RendezvousInfo info{net::SocketAddress::parse(root), {}};
    for (size_t i = 0; i < info.secret.size(); ++i) info.secret[i] = static_cast<uint8_t>(i + 1);
    RendezvousInfo decoded = decodeUniqueId(encodeUniqueId(info));
    CHECK(decoded.root.toString() == root);
    CHECK(decoded.secret == info.secret);
  }
  RendezvousInfo first = decodeUniqueId(createUniqueId(1s));
  RendezvousInfo second = decodeUniqueId(createUniqueId(1s));
  CHECK(first.secret != second.secret);
  CHECK(first.root.toString() != second.root.toString());
}

TEST_CASE("malformed unique ids and arguments are InvalidArgument", "[bootstrap]") {
  trncclUniqueId good = createUniqueId(1s);
  auto expectInvalid = [](const trncclUniqueId& id, int rank, int nranks, const char* argument) {
    try {
      Bootstrap::connect(id, rank, nranks, 200ms);
      FAIL("connect accepted it");
    } catch (const Error& e) {
      INFO(e.what());
      CHECK(e.code() == trncclInvalidArgument);
      CHECK(std::string(e.what()).find(std::string("argument '") + argument + "'") == 0);
    }
  };

  trncclUniqueId zero{};
  expectInvalid(zero, 0, 1, "id");
  trncclUniqueId random;
  for (size_t i = 0; i < sizeof(random.internal); ++i) random.internal[i] = static_cast<char>(i * 97 + 13);
  expectInvalid(random, 0, 1, "id");
  // Every byte of the id matters: flip each one in turn.
  for (size_t i = 0; i < sizeof(good.internal); ++i) {
    trncclUniqueId flipped = good;
    flipped.internal[i] ^= 0x80;
    bool rootOrSecret = i >= 16 && i < 16 + 16 + 24;  // still well-formed, just another job
    if (rootOrSecret) continue;
    INFO("byte " << i);
    expectInvalid(flipped, 0, 1, "id");
  }
  RendezvousInfo noSecret = decodeUniqueId(good);
  noSecret.secret = {};
  expectInvalid(encodeUniqueId(noSecret), 0, 1, "id");

  expectInvalid(good, 1, 1, "rank");
  expectInvalid(good, -1, 2, "rank");
  expectInvalid(good, 0, 0, "nranks");
}

TEST_CASE("TRNCCL_COMM_ID: the root listens on the given port, and a port in use is an error naming it",
          "[bootstrap]") {
  // A free port, found by letting the kernel pick one and closing it again.
  const net::SocketAddress picked = net::Socket::listen(net::SocketAddress::parse("127.0.0.1:0")).localAddress();
  const std::string fixed = picked.toString();
  struct EnvGuard {
    explicit EnvGuard(const std::string& value) { setenv("TRNCCL_COMM_ID", value.c_str(), 1); }
    ~EnvGuard() { unsetenv("TRNCCL_COMM_ID"); }
  };
  {
    EnvGuard env(fixed);
    const trncclUniqueId id = createUniqueId(5s);
    CHECK(decodeUniqueId(id).root.toString() == fixed);
    // The job meets there.
    std::vector<int> wrong(2, -1);
    std::vector<std::thread> ranks;
    for (int r = 0; r < 2; ++r)
      ranks.emplace_back(
          [&, r] { wrong[r] = countWrong(gatherPattern(*Bootstrap::connect(id, r, 2, kTimeout), 10), 2, 10); });
    for (auto& t : ranks) t.join();
    CHECK(wrong == std::vector<int>{0, 0});
  }
  {
    // Another program listens on the port.
    net::Socket squatter = net::Socket::listen(net::SocketAddress::parse("127.0.0.1:0"));
    const std::string taken = squatter.localAddress().toString();
    EnvGuard env(taken);
    try {
      createUniqueId(1s);
      FAIL("the root listened on a port in use");
    } catch (const Error& e) {
      INFO(e.what());
      CHECK(e.code() == trncclSystemError);
      CHECK(std::string(e.what()).find("TRNCCL_COMM_ID=" + taken) != std::string::npos);
      CHECK(std::string(e.what()).find("in use") != std::string::npos);
    }
  }
  {
    EnvGuard env("not-an-address");
    try {
      createUniqueId(1s);
      FAIL("a malformed TRNCCL_COMM_ID was accepted");
    } catch (const Error& e) {
      INFO(e.what());
      CHECK(e.code() == trncclInvalidArgument);
      CHECK(std::string(e.what()).find("TRNCCL_COMM_ID") != std::string::npos);
    }
  }
}

namespace {

// One rank of a job whose ranks are processes: 0 on success, else what failed.
int processRank(const trncclUniqueId& id, int rank, int nranks, std::vector<int64_t>* pids) {
  try {
    auto bootstrap = Bootstrap::connect(id, rank, nranks, kTimeout);
    if (countWrong(gatherPattern(*bootstrap, 100), nranks, 100) != 0) return 3;
    std::vector<int64_t> all(nranks);
    all[rank] = getpid();
    bootstrap->allGather(all.data(), sizeof(int64_t));
    if (pids) *pids = all;
    uint64_t token = rank == 0 ? 0x5eed : 0;
    bootstrap->broadcast(&token, sizeof(token), 0);
    if (token != 0x5eed) return 4;
    bootstrap->barrier();
    return 0;
  } catch (const std::exception&) {
    return 2;
  }
}

// Waits for a child for at most `limit`; kills it after that. Its exit code, or -1.
int waitChild(pid_t pid, milliseconds limit) {
  auto end = Clock::now() + limit;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > end) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(5ms);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("ranks as separate processes", "[bootstrap][process]") {
  constexpr int kRanks = 4;
  trncclUniqueId id = createUniqueId(kTimeout);
  std::vector<pid_t> children;
  for (int rank = 1; rank < kRanks; ++rank) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) _exit(processRank(id, rank, kRanks, nullptr));
    children.push_back(pid);
  }
  std::vector<int64_t> pids;
  int parent = processRank(id, 0, kRanks, &pids);
  for (pid_t child : children) CHECK(waitChild(child, kTimeout) == 0);
  CHECK(parent == 0);
  REQUIRE(pids.size() == kRanks);
  CHECK(pids[0] == getpid());
  for (int rank = 1; rank < kRanks; ++rank) CHECK(pids[rank] == children[rank - 1]);
}

TEST_CASE("a rank process that dies is a RemoteError naming it", "[bootstrap][process]") {
  trncclUniqueId id = createUniqueId(kTimeout);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    try {
      Bootstrap::connect(id, 1, 2, kTimeout)->barrier();
    } catch (...) {
      _exit(2);
    }
    _exit(0);  // without a goodbye: the kernel closes the sockets
  }
  std::optional<Error> error;
  try {
    auto bootstrap = Bootstrap::connect(id, 0, 2, kTimeout);
    bootstrap->barrier();
    uint32_t value;
    bootstrap->recv(1, 1, &value, sizeof(value));
  } catch (const Error& e) {
    error = e;
  }
  CHECK(waitChild(pid, kTimeout) == 0);
  REQUIRE(error);
  INFO(error->what());
  CHECK(error->code() == trncclRemoteError);
  CHECK(std::string(error->what()).find("rank 1") != std::string::npos);
}
