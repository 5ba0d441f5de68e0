// What every transport must do (transports/transport.h), run against every
// variant in transports_under_test.cc, with ranks as threads and as processes.
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <deque>
#include <new>
#include <random>
#include <thread>
#include <utility>

#include "tests/transports/check.h"
#include "tests/transports/launch.h"
#include "tests/transports/transports_under_test.h"

using namespace trnccl;
using namespace trnccl::test;
using transport::Request;
using transport::Tag;
using transport::Transport;

namespace {

using TransportBody = std::function<void(int rank, TestOutOfBand& oob, Transport& transport)>;

std::vector<RankResult> runWithTransport(const TransportUnderTest& variant, Launch how, int nranks,
                                         const TransportBody& body) {
  VariantEnvironment environment(variant);
  const std::string jobKey = uniqueJobKey("conformance");
  return launch(how, nranks, [&](int rank, TestOutOfBand& oob) {
    std::unique_ptr<Transport> transport = variant.entry->create(optionsFor(oob, jobKey));
    body(rank, oob, *transport);
  });
}

// A receive buffer with guard bytes behind the capacity, to catch overruns.
constexpr size_t kGuardBytes = 64;
constexpr std::byte kGuard{0xA5};

// `buffer` holds kGuardBytes of kGuard right behind `bytes`.
void expectReceived(const Request& receive, const std::vector<std::byte>& buffer, size_t bytes, int from, int to) {
  expect(receive.done, "receive not done");
  expect(receive.transferred == bytes, "receive of tag " + std::to_string(receive.tag) + " reports " +
                                           std::to_string(receive.transferred) + " bytes, want " +
                                           std::to_string(bytes));
  const std::string mismatch = patternMismatch(buffer.data(), bytes, from, to, receive.tag);
  expect(mismatch.empty(), mismatch);
  const auto guard = buffer.begin() + static_cast<std::ptrdiff_t>(bytes);
  expect(std::all_of(guard, guard + kGuardBytes, [](std::byte b) { return b == kGuard; }),
         "receive of tag " + std::to_string(receive.tag) + " wrote past its capacity");
}

// Memory of its own mapping: unmapping it makes any later access fault, and
// ranks forked after it was mapped with `shared` see each other's writes.
class Mapping {
 public:
  explicit Mapping(size_t bytes, bool shared = false)
      : bytes_(bytes),
        data_(
            mmap(nullptr, bytes, PROT_READ | PROT_WRITE, (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0)) {
    expect(data_ != MAP_FAILED, "mmap failed");
  }
  ~Mapping() { unmap(); }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  std::byte* data() const { return static_cast<std::byte*>(data_); }
  void unmap() {
    if (data_ != MAP_FAILED) munmap(std::exchange(data_, MAP_FAILED), bytes_);
  }

 private:
  size_t bytes_;
  void* data_;
};

// Rank 0 announces a large message with `tag` from `out`, rank 1 sees the
// announcement, and rank 0 cancels the send, fills `out` with 0x77 and, if
// `freed`, unmaps it.
void announceThenCancel(int rank, TestOutOfBand& oob, Transport& t, Tag tag, Mapping& out, size_t bytes, bool freed) {
  if (rank == 0) {
    fillPattern(out.data(), bytes, 0, 1, tag);
    Request send = makeRequest(1, tag, out.data(), bytes);
    t.isend(send);
    for (int i = 0; i < 10; ++i) t.progress();
    oob.barrier();
    oob.barrier();  // rank 1 has seen the announcement
    t.cancelAll();
    expect(!send.done, "a send completed without a receive");
    std::memset(out.data(), 0x77, bytes);
    if (freed) out.unmap();
  } else {
    oob.barrier();
    for (int i = 0; i < 10; ++i) t.progress();
    oob.barrier();
  }
  oob.barrier();
}

// Wall and CPU seconds a call takes on this thread.
template <class Call>
std::pair<double, double> timed(Call&& call) {
  const auto cpuNow = [] {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  };
  const auto start = std::chrono::steady_clock::now();
  const double cpu = cpuNow();
  call();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), cpuNow() - cpu};
}

}  // namespace

TEST_CASE("transport conformance: 0 B to 64 MiB arrive intact, receive posted first or last",
          "[transport][conformance]") {
  const TransportUnderTest variant = GENERATE(from_range(transportsUnderTest()));
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  CAPTURE(variant.name, launchName(how));
  requireIntactOrCaught(variant, runWithTransport(variant, how, 2, [](int rank, TestOutOfBand& oob, Transport& t) {
                          const int peer = 1 - rank;
                          Tag tag = 0;
                          constexpr size_t kLargest = size_t{64} << 20;
                          // One pair of buffers for every size: a fresh 64 MiB vector per message
                          // cost more in page faults and zeroing than its transfer (37 s -> 23 s).
                          std::vector<std::byte> out(kLargest), in(kLargest + kGuardBytes);
                          for (const size_t bytes : {size_t{0}, size_t{1}, size_t{7}, size_t{4095}, size_t{65536},
                                                     size_t{65537}, size_t{(1 << 20) + 13}, kLargest}) {
                            for (const bool receiveFirst : {true, false}) {
                              ++tag;
                              std::fill_n(in.begin(), bytes + kGuardBytes, kGuard);
                              fillPattern(out.data(), bytes, rank, peer, tag);
                              Request send = makeRequest(peer, tag, out.data(), bytes);
                              Request receive = makeRequest(peer, tag, in.data(), bytes);
                              if (receiveFirst) {
                                t.irecv(receive);
                                oob.barrier();
                                t.isend(send);
                              } else {
                                t.isend(send);
                                for (int i = 0; i < 10; ++i) t.progress();  // the message reaches the peer unexpected
                                oob.barrier();
                                t.irecv(receive);
                              }
                              drive(t, {&send, &receive});
                              expect(send.done, "send not done");
                              expectReceived(receive, in, bytes, peer, rank);
                              oob.barrier();  // the peer is done with our buffer (single copy reads it)
                            }
                          }
                        }));
}

TEST_CASE(
    "transport conformance: many concurrent messages among 2, 3, 4 and 8 ranks, "
    "posted in random order",
    "[transport][conformance]") {
  const TransportUnderTest variant = GENERATE(from_range(transportsUnderTest()));
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  const int nranks = GENERATE(2, 3, 4, 8);
  CAPTURE(variant.name, launchName(how), nranks);
  requireIntactOrCaught(
      variant, runWithTransport(variant, how, nranks, [nranks](int rank, TestOutOfBand&, Transport& t) {
        constexpr int kPerPeer = 10;
        // Sizes straddle the interesting limits: empty, one byte, odd, a slot, a
        // slot plus one, several slots.
        constexpr size_t kSizes[] = {0, 1, 333, 4096, 65536, 65537, 200001, 1 << 20};
        auto sizeOf = [&](int from, int to, int i) {
          return kSizes[static_cast<size_t>(from * 5 + to * 3 + i * 7) % std::size(kSizes)];
        };
        auto tagOf = [](int i) { return (Tag{0xC0FFEE} << 32) | static_cast<Tag>(i * 17 + 3); };
        struct Op {
          bool send;
          int peer;
          int index;
          std::vector<std::byte> buffer;
          Request request;
        };
        std::deque<Op> ops;  // stable addresses: the transport holds the requests
        for (int peer = 0; peer < nranks; ++peer) {
          if (peer == rank) continue;
          for (int i = 0; i < kPerPeer; ++i) {
            const size_t out = sizeOf(rank, peer, i);
            Op& send = ops.emplace_back(Op{true, peer, i, std::vector<std::byte>(out), {}});
            fillPattern(send.buffer.data(), out, rank, peer, tagOf(i));
            send.request = makeRequest(peer, tagOf(i), send.buffer.data(), out);
            const size_t in = sizeOf(peer, rank, i);
            // Sometimes roomier than the message needs.
            const size_t capacity = in + static_cast<size_t>(i % 3);
            Op& receive =
                ops.emplace_back(Op{false, peer, i, std::vector<std::byte>(capacity + kGuardBytes, kGuard), {}});
            receive.request = makeRequest(peer, tagOf(i), receive.buffer.data(), capacity);
          }
        }
        std::vector<Op*> order;
        for (Op& op : ops) order.push_back(&op);
        std::mt19937 random(static_cast<unsigned>(rank * 7919 + nranks));
        std::shuffle(order.begin(), order.end(), random);
        for (Op* op : order) {
          op->send ? t.isend(op->request) : t.irecv(op->request);
          if (random() % 4 == 0) t.progress();
        }
        std::vector<Request*> requests;
        for (Op* op : order) requests.push_back(&op->request);
        drive(t, requests);
        for (const Op& op : ops) {
          if (!op.send) expectReceived(op.request, op.buffer, sizeOf(op.peer, rank, op.index), op.peer, rank);
        }
      }));
}

TEST_CASE(
    "transport conformance: a message larger than its receive is InvalidUsage naming the "
    "peer and both sizes",
    "[transport][conformance]") {
  const TransportUnderTest variant = GENERATE(from_range(transportsUnderTest()));
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  CAPTURE(variant.name, launchName(how));
  requireIntactOrCaught(
      variant, runWithTransport(variant, how, 2, [](int rank, TestOutOfBand& oob, Transport& t) {
        Tag tag = 0;
        for (const size_t bytes : {size_t{100}, size_t{3} << 20}) {
          std::vector<std::byte> buffer(bytes);
          const Tag tooBig = ++tag;
          const Tag after = ++tag;
          if (rank == 0) {
            fillPattern(buffer.data(), bytes, 0, 1, after);
            Request send = makeRequest(1, tooBig, buffer.data(), bytes);
            t.isend(send);
            // The sender may finish (the bytes left) or learn the receive was too small.
            try {
              drive(t, {&send});
            } catch (const Error& e) {
              expect(e.code() == trncclInvalidUsage, std::string("sender got ") + e.what());
            }
            oob.barrier();
            Request next = makeRequest(1, after, buffer.data(), bytes);
            t.isend(next);
            drive(t, {&next});
          } else {
            Request receive = makeRequest(0, tooBig, buffer.data(), bytes / 2);
            t.irecv(receive);
            const Error e = errorFrom([&] { drive(t, {&receive}); });
            const std::string message = e.what();
            expect(e.code() == trncclInvalidUsage, "receiver got " + message);
            for (const std::string& part : {std::string("rank 0"), std::to_string(bytes), std::to_string(bytes / 2)})
              expect(message.find(part) != std::string::npos, "'" + message + "' does not mention '" + part + "'");
            oob.barrier();
            // The transport still works afterwards.
            std::vector<std::byte> in(bytes + kGuardBytes, kGuard);
            Request next = makeRequest(0, after, in.data(), bytes);
            t.irecv(next);
            drive(t, {&next});
            expectReceived(next, in, bytes, 0, 1);
          }
          oob.barrier();
        }
      }));
}

// What the rails of a transport moved in all, and that they are named and up.
std::pair<uint64_t, uint64_t> railTotals(const Transport& t) {
  uint64_t sent = 0, received = 0;
  for (const transport::RailStatus& rail : t.railStatus()) {
    expect(!rail.name.empty(), std::string(t.name()) + " has a rail without a name");
    expect(rail.up && rail.failovers == 0, std::string(t.name()) + " rail " + rail.name + " is down on a healthy job");
    sent += rail.bytesSent;
    received += rail.bytesReceived;
  }
  return {sent, received};
}

TEST_CASE("transport conformance: railStatus counts the bytes the rails moved", "[transport][conformance]") {
  const TransportUnderTest variant = GENERATE(from_range(transportsUnderTest()));
  CAPTURE(variant.name);
  requireIntactOrCaught(variant,
                        runWithTransport(variant, Launch::Threads, 2, [](int rank, TestOutOfBand& oob, Transport& t) {
                          const int peer = 1 - rank;
                          expect(!t.railStatus().empty(), std::string(t.name()) + " reports no rails");
                          const auto [sentBefore, receivedBefore] = railTotals(t);
                          oob.barrier();
                          const size_t bytes = size_t{8} << 20;
                          std::vector<std::byte> out(bytes), in(bytes + kGuardBytes, kGuard);
                          fillPattern(out.data(), bytes, rank, peer, 1);
                          Request send = makeRequest(peer, 1, out.data(), bytes);
                          Request receive = makeRequest(peer, 1, in.data(), bytes);
                          t.irecv(receive);
                          t.isend(send);
                          drive(t, {&send, &receive});
                          expectReceived(receive, in, bytes, peer, rank);
                          oob.barrier();
                          const auto [sentAfter, receivedAfter] = railTotals(t);
                          // The payload, plus what headers and control messages add (well under 1%).
                          const uint64_t most = bytes + bytes / 100;
                          expect(sentAfter - sentBefore >= bytes && sentAfter - sentBefore <= most,
                                 "rails sent " + std::to_string(sentAfter - sentBefore) + " bytes for an " +
                                     std::to_string(bytes) + "-byte message");
                          expect(receivedAfter - receivedBefore >= bytes && receivedAfter - receivedBefore <= most,
                                 "rails received " + std::to_string(receivedAfter - receivedBefore) + " bytes for an " +
                                     std::to_string(bytes) + "-byte message");
                        }));
}

TEST_CASE("transport conformance: after cancelAll the transport leaves posted buffers alone",
          "[transport][conformance]") {
  const TransportUnderTest variant = GENERATE(from_range(transportsUnderTest()));
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  CAPTURE(variant.name, launchName(how));
  requireIntactOrCaught(variant, runWithTransport(variant, how, 2, [](int rank, TestOutOfBand& oob, Transport& t) {
                          constexpr size_t kBytes = 1000;
                          std::vector<std::byte> buffer(kBytes, kGuard);
                          if (rank == 1) {
                            Request dropped = makeRequest(0, 1, buffer.data(), kBytes);
                            t.irecv(dropped);
                            t.progress();
                            t.cancelAll();
                            oob.barrier();  // now rank 0 sends tags 1 and 2
                            std::vector<std::byte> in(kBytes + kGuardBytes, kGuard);
                            Request later = makeRequest(0, 2, in.data(), kBytes);
                            t.irecv(later);
                            drive(t, {&later});  // tag 1 arrived first, on the same path
                            expectReceived(later, in, kBytes, 0, 1);
                            expect(!dropped.done, "a cancelled receive completed");
                            expect(std::all_of(buffer.begin(), buffer.end(), [](std::byte b) { return b == kGuard; }),
                                   "a cancelled receive's buffer was written");
                          } else {
                            oob.barrier();
                            std::vector<std::byte> first(kBytes), second(kBytes);
                            fillPattern(first.data(), kBytes, 0, 1, 1);
                            fillPattern(second.data(), kBytes, 0, 1, 2);
                            Request a = makeRequest(1, 1, first.data(), kBytes);
                            Request b = makeRequest(1, 2, second.data(), kBytes);
                            t.isend(a);
                            t.isend(b);
                            drive(t, {&b});
                            t.cancelAll();  // `a` may wait forever for a receive that was cancelled
                          }
                          oob.barrier();
                        }));
}

TEST_CASE(
    "transport conformance: a peer process that dies mid-transfer is a RemoteError on the "
    "survivor within seconds",
    "[transport][conformance]") {
  const TransportUnderTest variant = GENERATE(from_range(transportsUnderTest()));
  const bool killed = GENERATE(false, true);
  const char* death = killed ? "SIGKILL" : "_exit";
  CAPTURE(variant.name, death);
  constexpr size_t kBytes = 64 << 20;
  constexpr auto kBound = std::chrono::seconds(10);
  const auto results = runWithTransport(variant, Launch::Processes, 2, [&](int rank, TestOutOfBand& oob, Transport& t) {
    std::vector<std::byte> buffer(kBytes);
    if (rank == 1) {
      Request send = makeRequest(0, 1, buffer.data(), kBytes);
      t.isend(send);
      oob.barrier();
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
      while (std::chrono::steady_clock::now() < until) t.progress();
      if (killed) raise(SIGKILL);
      _exit(7);
    }
    Request receive = makeRequest(1, 1, buffer.data(), kBytes);
    std::byte unused{};
    Request never = makeRequest(1, 2, &unused, 1);  // keeps a request outstanding at the death
    t.irecv(receive);
    t.irecv(never);
    oob.barrier();
    const auto start = std::chrono::steady_clock::now();
    const Error e = errorFrom([&] { drive(t, {&receive, &never}, kBound * 2); });
    const auto took = std::chrono::steady_clock::now() - start;
    const std::string message = e.what();
    expect(e.code() == trncclRemoteError, "got " + message);
    expect(message.find("rank 1") != std::string::npos, "'" + message + "' does not name rank 1");
    expect(took < kBound,
           "the death was noticed only after " + std::to_string(std::chrono::duration<double>(took).count()) + " s");
  });
  INFO("rank 0: " << results[0].describe() << "; rank 1: " << results[1].describe());
  CHECK(results[0].ok());
  CHECK(results[1].error.empty());
  CHECK((killed ? results[1].signal == SIGKILL : results[1].exitCode == 7));
}

TEST_CASE(
    "transport conformance: a large send cancelled before its receive is never delivered from "
    "the reused or freed buffer, and its tag can be sent again",
    "[transport][conformance]") {
  const TransportUnderTest variant = GENERATE(from_range(transportsUnderTest()));
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  const bool freed = GENERATE(false, true);
  CAPTURE(variant.name, launchName(how), freed);
  requireIntactOrCaught(variant, runWithTransport(variant, how, 2, [freed](int rank, TestOutOfBand& oob, Transport& t) {
                          constexpr size_t kBytes = size_t{1} << 20;
                          Mapping cancelled1(kBytes), cancelled2(kBytes);  // rank 0's, until the end
                          std::vector<std::byte> again(kBytes);
                          std::vector<std::byte> in(kBytes + kGuardBytes, kGuard);
                          auto sendAgain = [&](Tag tag) {
                            fillPattern(again.data(), kBytes, 0, 1, tag);
                            Request send = makeRequest(1, tag, again.data(), kBytes);
                            t.isend(send);
                            for (int i = 0; i < 10; ++i) t.progress();
                            oob.barrier();
                            drive(t, {&send});
                          };

                          // The receive is posted after the cancel: it must wait, not take the
                          // stale bytes, and then get the message sent again with the tag.
                          announceThenCancel(rank, oob, t, 1, cancelled1, kBytes, freed);
                          if (rank == 0) {
                            oob.barrier();
                            sendAgain(1);
                          } else {
                            Request receive = makeRequest(0, 1, in.data(), kBytes);
                            t.irecv(receive);
                            const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
                            while (std::chrono::steady_clock::now() < until) t.progress();
                            expect(!receive.done, "a receive completed from a cancelled send's buffer");
                            oob.barrier();
                            oob.barrier();
                            drive(t, {&receive});
                            expectReceived(receive, in, kBytes, 0, 1);
                          }
                          oob.barrier();

                          // The message is sent again before the receive is posted: it replaces
                          // the cancelled one.
                          announceThenCancel(rank, oob, t, 2, cancelled2, kBytes, freed);
                          if (rank == 0) {
                            sendAgain(2);
                          } else {
                            oob.barrier();
                            for (int i = 0; i < 10; ++i) t.progress();
                            std::fill(in.begin(), in.end(), kGuard);
                            Request receive = makeRequest(0, 2, in.data(), kBytes);
                            t.irecv(receive);
                            drive(t, {&receive});
                            expectReceived(receive, in, kBytes, 0, 1);
                          }
                          oob.barrier();
                        }));
}

TEST_CASE(
    "transport conformance: a large send cancelled while its receiver copies it is left alone "
    "once cancelAll returns",
    "[transport][conformance]") {
  const TransportUnderTest variant = GENERATE(from_range(transportsUnderTest()));
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  CAPTURE(variant.name, launchName(how));
  // Rank 0 cancels each send at a random moment while rank 1 receives it,
  // then at once fills its buffer with a sentinel: rank 1 must never see it.
  constexpr int kRounds = 30;
  constexpr size_t kBytes = 6 << 20;  // more than one single-copy chunk
  constexpr std::byte kUnwritten{0xA5}, kSentinel{0x5A};
  Mapping board(sizeof(std::atomic<int>), /*shared=*/true);
  auto& cancelledRound = *new (board.data()) std::atomic<int>(-1);
  requireIntactOrCaught(
      variant, runWithTransport(variant, how, 2, [&](int rank, TestOutOfBand& oob, Transport& t) {
        std::vector<std::byte> message(kBytes), buffer(kBytes);
        fillPattern(message.data(), kBytes, 0, 1, 0);
        std::mt19937 random(12345);
        for (int round = 0; round < kRounds; ++round) {
          const auto tag = static_cast<Tag>(round + 1);
          const auto cancelAfter = std::chrono::microseconds(random() % 3000);
          if (rank == 0) {
            buffer = message;
            Request send = makeRequest(1, tag, buffer.data(), kBytes);
            oob.barrier();
            t.isend(send);
            const auto until = std::chrono::steady_clock::now() + cancelAfter;
            while (std::chrono::steady_clock::now() < until) t.progress();
            t.cancelAll();
            std::fill(buffer.begin(), buffer.end(), kSentinel);
            cancelledRound.store(round);
          } else {
            std::fill(buffer.begin(), buffer.end(), kUnwritten);
            Request receive = makeRequest(0, tag, buffer.data(), kBytes);
            t.irecv(receive);
            oob.barrier();
            while (!receive.done && cancelledRound.load() < round) t.progress();
            if (!receive.done) t.cancelAll();
            // Each byte is the message's or, in a cancelled receive, not written.
            const auto wrong = std::mismatch(
                buffer.begin(), buffer.end(), message.begin(),
                [&](std::byte got, std::byte want) { return got == want || (got == kUnwritten && !receive.done); });
            if (wrong.first != buffer.end())
              throw std::runtime_error("round " + std::to_string(round) + ": byte " +
                                       std::to_string(wrong.first - buffer.begin()) + " of the " +
                                       (receive.done ? "completed" : "cancelled") + " receive is " +
                                       std::to_string(std::to_integer<int>(*wrong.first)) + " (the sentinel is " +
                                       std::to_string(std::to_integer<int>(kSentinel)) + "), want " +
                                       std::to_string(std::to_integer<int>(*wrong.second)));
          }
          oob.barrier();
        }
      }));
}

TEST_CASE(
    "transport conformance: wait() sleeps without burning CPU until a message, interrupt() or "
    "its limit",
    "[transport][conformance]") {
  const TransportUnderTest variant = GENERATE(from_range(transportsUnderTest()));
  CAPTURE(variant.name);
  // A provider without a wait object is polled (ofi_wait.cc): a little CPU.
  constexpr double kCpuLimit = 0.05;
  requireIntactOrCaught(
      variant, runWithTransport(variant, Launch::Threads, 2, [&](int rank, TestOutOfBand& oob, Transport& t) {
        std::byte byte{};
        if (rank == 1) {
          oob.barrier();
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          Request send = makeRequest(0, 1, &byte, 1);
          t.isend(send);
          drive(t, {&send});
          oob.barrier();
          oob.barrier();  // stays (closing would wake rank 0) until rank 0 is done
          return;
        }
        Request receive = makeRequest(1, 1, &byte, 1);
        t.irecv(receive);
        t.progress();
        oob.barrier();
        auto [wall, cpu] = timed([&] { t.wait(std::chrono::seconds(5)); });
        expect(wall < 3.0, "a message did not wake wait() (" + std::to_string(wall) + " s)");
        expect(cpu < kCpuLimit, "wait() used " + std::to_string(cpu) + " s of CPU");
        drive(t, {&receive});
        oob.barrier();

        // As the runtime's backoff does, progress() comes before every wait().
        t.progress();
        t.interrupt();  // before the wait: not lost
        std::tie(wall, cpu) = timed([&] { t.wait(std::chrono::seconds(5)); });
        expect(wall < 3.0, "an earlier interrupt() did not end wait() (" + std::to_string(wall) + " s)");
        t.progress();
        std::thread interrupter([&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          t.interrupt();
        });
        std::tie(wall, cpu) = timed([&] { t.wait(std::chrono::seconds(5)); });
        interrupter.join();
        expect(wall < 3.0, "interrupt() did not wake wait() (" + std::to_string(wall) + " s)");
        expect(cpu < kCpuLimit, "wait() used " + std::to_string(cpu) + " s of CPU");

        // With nothing to do it sleeps its whole limit. The contract allows an
        // early return (a late acknowledgement, the interrupt above if the wait
        // before it woke early): a few tries, but little CPU in all.
        double longest = 0, cpuInAll = 0;
        for (int tries = 0; tries < 5 && longest < 0.15; ++tries) {
          t.progress();
          std::tie(wall, cpu) = timed([&] { t.wait(std::chrono::milliseconds(200)); });
          longest = std::max(longest, wall);
          cpuInAll += cpu;
        }
        expect(longest > 0.15 && longest < 3.0,
               "wait(200 ms) with nothing to do took at most " + std::to_string(longest) + " s");
        expect(cpuInAll < kCpuLimit, "wait() used " + std::to_string(cpuInAll) + " s of CPU");
        oob.barrier();
      }));
}

TEST_CASE("transport conformance: a rank that closes long after its peer closed closes cleanly",
          "[transport][conformance]") {
  const TransportUnderTest variant = GENERATE(from_range(transportsUnderTest()));
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  CAPTURE(variant.name, launchName(how));
  // Rank 1 never progresses while rank 0 says goodbye and goes; then it
  // closes too, sending its own goodbye to an endpoint that is gone.
  VariantEnvironment environment(variant);
  const std::string jobKey = uniqueJobKey("late-close");
  requireAllOk(launch(how, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = variant.entry->create(optionsFor(oob, jobKey));
    oob.barrier();
    if (rank == 0) {
      t.reset();
      oob.barrier();
    } else {
      oob.barrier();
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      t.reset();
    }
  }));
}
