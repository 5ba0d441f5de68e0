// Timed link emulation in the shared-memory transport (Options::emulation):
// messages still arrive intact, no message is delivered before its modelled
// time (lower bounds only: this host is noisy), ranks that share a link queue
// behind each other, held sends can be cancelled, bad settings are refused,
// and nothing is left in /dev/shm.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "tests/transports/check.h"
#include "tests/transports/launch.h"
#include "transports/shm/shm_transport.h"

using namespace trnccl;
using namespace trnccl::test;
using transport::LinkEmulation;
using transport::Request;
using transport::Tag;
using transport::Transport;
using Clock = std::chrono::steady_clock;

namespace {

// Ranks in a ring: link r carries rank r to rank r + 1 (mod n), and every
// message goes that way round, over as many links as it takes.
LinkEmulation clockwiseRing(int nranks, double bytesPerSec, double latency, double scale) {
  LinkEmulation e;
  e.scale = scale;
  e.linkBytesPerSec.assign(static_cast<size_t>(nranks), bytesPerSec);
  e.latencyTo.assign(static_cast<size_t>(nranks), latency);
  e.pathTo.resize(static_cast<size_t>(nranks));
  return e;
}
// The path from `rank` to each peer, for clockwiseRing.
void routeClockwise(LinkEmulation& e, int rank) {
  const int n = static_cast<int>(e.pathTo.size());
  for (int peer = 0; peer < n; ++peer)
    for (int link = rank; link != peer; link = (link + 1) % n) e.pathTo[peer].push_back(link);
}

// Every rank reaches every other over link 0 alone.
LinkEmulation oneSharedLink(int nranks, double bytesPerSec, double latency, double scale) {
  LinkEmulation e;
  e.scale = scale;
  e.linkBytesPerSec = {bytesPerSec};
  e.latencyTo.assign(static_cast<size_t>(nranks), latency);
  e.pathTo.assign(static_cast<size_t>(nranks), std::vector<int>{0});
  return e;
}

transport::Options emulatedOptions(const TestOutOfBand& oob, const std::string& jobKey, LinkEmulation emulation) {
  transport::Options options = optionsFor(oob, jobKey);
  options.emulation = std::move(emulation);
  return options;
}

// Files of the job in /dev/shm (every segment name carries the job key).
std::vector<std::string> jobFilesInDevShm(const std::string& jobKey) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm")) {
    const std::string name = entry.path().filename();
    if (name.find(jobKey) != std::string::npos) names.push_back(name);
  }
  return names;
}

// Whether this process maps the job's link board (it stays mapped, under its
// unlinked name, for as long as a transport of the job lives).
bool mapsLinkBoard(const std::string& jobKey) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find(jobKey + "-links-") != std::string::npos) return true;
  return false;
}

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void expectAtLeast(double seconds, double least, const std::string& what) {
  expect(seconds >= least, what + " took " + std::to_string(seconds) + " s, less than the " + std::to_string(least) +
                               " s the modelled links need");
}

}  // namespace

TEST_CASE("link emulation: messages to and from every peer arrive intact", "[shm][emulation]") {
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  const char* copy = GENERATE("auto", "cma", "fifo");
  CAPTURE(launchName(how), copy);
  ScopedEnv copyPath("TRNCCL_SHM_COPY", copy);
  constexpr int kRanks = 4;
  // Eager, empty, exactly one slot, announced, and streamed over several slots.
  const std::vector<size_t> sizes = {0, 1, 1000, 65536, 70000, 300000};
  const std::string jobKey = uniqueJobKey("emulate-intact");
  requireAllOk(launch(how, kRanks, [&](int rank, TestOutOfBand& oob) {
    LinkEmulation emulation = clockwiseRing(kRanks, 2e9, 2e-6, 1.0);
    routeClockwise(emulation, rank);
    auto t = transport::createShmTransport(emulatedOptions(oob, jobKey, emulation));
    // Reserved: requests point into these.
    std::vector<std::vector<std::byte>> sent, received;
    sent.reserve(kRanks * sizes.size());
    received.reserve(kRanks * sizes.size());
    std::vector<Request> requests;
    requests.reserve(2 * kRanks * sizes.size());
    std::vector<Request*> all;
    for (int peer = 0; peer < kRanks; ++peer) {
      if (peer == rank) continue;
      for (size_t i = 0; i < sizes.size(); ++i) {
        const auto tag = static_cast<Tag>(i);
        sent.emplace_back(sizes[i]);
        fillPattern(sent.back().data(), sizes[i], rank, peer, tag);
        requests.push_back(makeRequest(peer, tag, sent.back().data(), sizes[i]));
        t->isend(requests.back());
        all.push_back(&requests.back());
        received.emplace_back(sizes[i]);
        requests.push_back(makeRequest(peer, tag, received.back().data(), sizes[i]));
        t->irecv(requests.back());
        all.push_back(&requests.back());
      }
    }
    drive(*t, all);
    size_t next = 0;
    for (int peer = 0; peer < kRanks; ++peer) {
      if (peer == rank) continue;
      for (size_t i = 0; i < sizes.size(); ++i, ++next) {
        expect(requests[2 * next + 1].transferred == sizes[i], "wrong size received");
        const std::string mismatch = patternMismatch(received[next].data(), sizes[i], peer, rank, static_cast<Tag>(i));
        expect(mismatch.empty(), mismatch);
      }
    }
    oob.barrier();  // nobody closes while a peer still drains its replies
  }));
  CHECK(jobFilesInDevShm(jobKey).empty());
}

TEST_CASE("link emulation: a message is delivered no earlier than bytes / bandwidth + latency", "[shm][emulation]") {
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  // Empty (latency only), eager, and announced.
  const size_t bytes = GENERATE(size_t{0}, size_t{1000}, size_t{1} << 20);
  CAPTURE(launchName(how), bytes);
  constexpr double kBytesPerSec = 1e8, kLatency = 4e-3, kScale = 2.5;
  const double least = static_cast<double>(bytes) / kBytesPerSec * kScale + kLatency * kScale;
  const std::string jobKey = uniqueJobKey("emulate-bound");
  requireAllOk(launch(how, 2, [&](int rank, TestOutOfBand& oob) {
    auto t =
        transport::createShmTransport(emulatedOptions(oob, jobKey, oneSharedLink(2, kBytesPerSec, kLatency, kScale)));
    std::vector<std::byte> buffer(bytes);
    const Tag tag = 7;
    if (rank == 1) fillPattern(buffer.data(), bytes, 1, 0, tag);
    Request request = makeRequest(1 - rank, tag, buffer.data(), bytes);
    // The receiver's clock starts before the sender can post.
    const Clock::time_point start = Clock::now();
    oob.barrier();
    rank == 1 ? t->isend(request) : t->irecv(request);
    drive(*t, {&request});
    expectAtLeast(secondsSince(start), least, rank == 1 ? "the send" : "the receive");
    if (rank == 0) {
      const std::string mismatch = patternMismatch(buffer.data(), bytes, 1, 0, tag);
      expect(mismatch.empty(), mismatch);
    }
    oob.barrier();
  }));
  CHECK(jobFilesInDevShm(jobKey).empty());
}

TEST_CASE("link emulation: two ranks' messages over one shared link queue behind each other", "[shm][emulation]") {
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  CAPTURE(launchName(how));
  constexpr size_t kBytes = 1 << 20;
  constexpr double kBytesPerSec = 2e8, kLatency = 1e-3, kScale = 3;
  const double one = static_cast<double>(kBytes) / kBytesPerSec * kScale;
  const std::string jobKey = uniqueJobKey("emulate-shared");
  requireAllOk(launch(how, 3, [&](int rank, TestOutOfBand& oob) {
    auto t =
        transport::createShmTransport(emulatedOptions(oob, jobKey, oneSharedLink(3, kBytesPerSec, kLatency, kScale)));
    if (rank == 0) {
      std::vector<std::byte> from1(kBytes), from2(kBytes);
      Request receive1 = makeRequest(1, 1, from1.data(), kBytes);
      Request receive2 = makeRequest(2, 2, from2.data(), kBytes);
      t->irecv(receive1);
      t->irecv(receive2);
      const Clock::time_point start = Clock::now();
      oob.barrier();
      drive(*t, {&receive1, &receive2});
      expectAtLeast(secondsSince(start), 2 * one + kLatency * kScale, "two concurrent 1 MiB messages over one link");
      const std::string mismatch1 = patternMismatch(from1.data(), kBytes, 1, 0, 1);
      const std::string mismatch2 = patternMismatch(from2.data(), kBytes, 2, 0, 2);
      expect(mismatch1.empty() && mismatch2.empty(), mismatch1 + mismatch2);
    } else {
      std::vector<std::byte> message(kBytes);
      fillPattern(message.data(), kBytes, rank, 0, static_cast<Tag>(rank));
      Request send = makeRequest(0, static_cast<Tag>(rank), message.data(), kBytes);
      oob.barrier();
      t->isend(send);
      drive(*t, {&send});
    }
    oob.barrier();
  }));
  CHECK(jobFilesInDevShm(jobKey).empty());
}

TEST_CASE("link emulation: every message pays its issue time, one after another, even an empty one",
          "[shm][emulation]") {
  // Rank 1 posts k empty messages to rank 0 over link 0 at once: each holds
  // the link for its issue time, so the last is due no earlier than
  // (k * issue + latency) * scale after the receiver's clock starts. No
  // issue times at all (an empty issueTo) are accepted: issue time 0.
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  const bool issued = GENERATE(true, false);
  CAPTURE(launchName(how), issued);
  constexpr int kMessages = 8;
  constexpr double kIssue = 2e-3, kLatency = 1e-4, kScale = 1.5;
  const double least = ((issued ? kMessages * kIssue : 0) + kLatency) * kScale;
  const std::string jobKey = uniqueJobKey("emulate-issue");
  requireAllOk(launch(how, 2, [&](int rank, TestOutOfBand& oob) {
    LinkEmulation emulation = oneSharedLink(2, 1e9, kLatency, kScale);
    if (issued) emulation.issueTo.assign(2, kIssue);
    auto t = transport::createShmTransport(emulatedOptions(oob, jobKey, emulation));
    std::byte none{};
    std::vector<Request> requests;
    for (int i = 0; i < kMessages; ++i) requests.push_back(makeRequest(1 - rank, static_cast<Tag>(i), &none, 0));
    std::vector<Request*> all;
    for (Request& r : requests) all.push_back(&r);
    const Clock::time_point start = Clock::now();
    oob.barrier();
    for (Request& r : requests) rank == 1 ? t->isend(r) : t->irecv(r);
    drive(*t, all);
    if (rank == 0) expectAtLeast(secondsSince(start), least, std::to_string(kMessages) + " issued empty messages");
    oob.barrier();
  }));
  CHECK(jobFilesInDevShm(jobKey).empty());
}

TEST_CASE("link emulation: wait() wakes when a held send is due, not at its limit", "[shm][emulation]") {
  const std::string jobKey = uniqueJobKey("emulate-wait");
  constexpr double kLatency = 0.05;
  requireAllOk(launch(Launch::Threads, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(emulatedOptions(oob, jobKey, oneSharedLink(2, 1e9, kLatency, 1.0)));
    std::byte byte{};
    Request request = makeRequest(1 - rank, 1, &byte, 1);
    if (rank == 0) {
      t->irecv(request);
      drive(*t, {&request});
    } else {
      t->isend(request);
      t->progress();
      const Clock::time_point start = Clock::now();
      t->wait(std::chrono::seconds(20));
      const double slept = secondsSince(start);
      // A generous limit: it only tells a wake-up from sleeping out the 20 s.
      expect(slept < 10, "wait() slept " + std::to_string(slept) + " s past the due time");
      drive(*t, {&request});
    }
    oob.barrier();
  }));
}

TEST_CASE("link emulation: cancelAll withdraws sends still held back", "[shm][emulation]") {
  const std::string jobKey = uniqueJobKey("emulate-cancel");
  constexpr double kLatency = 0.2;
  requireAllOk(launch(Launch::Threads, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(emulatedOptions(oob, jobKey, oneSharedLink(2, 1e9, kLatency, 1.0)));
    // The receiver's bytes start as 0.
    std::byte cancelled = rank == 1 ? std::byte{1} : std::byte{0};
    std::byte later = rank == 1 ? std::byte{2} : std::byte{0};
    Request first = makeRequest(1 - rank, 1, &cancelled, 1);
    Request second = makeRequest(1 - rank, 2, &later, 1);
    if (rank == 1) {
      t->isend(first);
      t->progress();  // not due yet: held back
      t->cancelAll();
      t->isend(second);
      drive(*t, {&second});
    } else {
      t->irecv(first);
      t->irecv(second);
      drive(*t, {&second});
      // The first would have come before the second (one peer's sends go out in order).
      t->progress();
      expect(!first.done && cancelled == std::byte{0}, "a cancelled send was delivered");
      expect(later == std::byte{2}, "the later message arrived damaged");
      t->cancelAll();
    }
    oob.barrier();
  }));
  CHECK(jobFilesInDevShm(jobKey).empty());
}

TEST_CASE("link emulation: only an emulating job maps a shared link board", "[shm][emulation]") {
  const bool emulated = GENERATE(false, true);
  CAPTURE(emulated);
  const std::string jobKey = uniqueJobKey("emulate-board");
  requireAllOk(launch(Launch::Threads, 2, [&](int rank, TestOutOfBand& oob) {
    transport::Options options = optionsFor(oob, jobKey);
    if (emulated) options.emulation = oneSharedLink(2, 1e9, 1e-6, 1.0);
    auto t = transport::createShmTransport(options);
    oob.barrier();  // every rank is set up
    expect(mapsLinkBoard(jobKey) == emulated,
           emulated ? "no link board mapped" : "a link board mapped without emulation");
    std::byte byte = rank == 0 ? std::byte{3} : std::byte{0};
    Request request = makeRequest(1 - rank, 1, &byte, 1);
    rank == 0 ? t->isend(request) : t->irecv(request);
    drive(*t, {&request});
    expect(byte == std::byte{3}, "the message arrived damaged");
    oob.barrier();
  }));
  CHECK(jobFilesInDevShm(jobKey).empty());
}

TEST_CASE("link emulation: unusable settings fail setup on every rank, naming what is wrong", "[shm][emulation]") {
  const std::string jobKey = uniqueJobKey("emulate-bad");
  auto expectSetupFails = [&](const std::function<void(int, LinkEmulation&)>& spoil, trncclResult_t code,
                              const std::string& named) {
    requireAllOk(launch(Launch::Threads, 3, [&](int rank, TestOutOfBand& oob) {
      LinkEmulation emulation = oneSharedLink(3, 1e9, 1e-6, 1.0);
      spoil(rank, emulation);
      const Error e = errorFrom([&] { transport::createShmTransport(emulatedOptions(oob, jobKey, emulation)); });
      expect(e.code() == code, std::string("got ") + e.what());
      expect(std::string(e.what()).find(named) != std::string::npos,
             std::string("'") + e.what() + "' does not mention '" + named + "'");
    }));
  };
  SECTION("a path over a link that does not exist") {
    expectSetupFails(
        [](int rank, LinkEmulation& e) {
          if (rank == 2) e.pathTo[0] = {0, 1};
        },
        trncclInvalidArgument, "over link 1");
  }
  SECTION("a link without bandwidth") {
    expectSetupFails([](int, LinkEmulation& e) { e.linkBytesPerSec[0] = 0; }, trncclInvalidArgument,
                     "options.emulation.linkBytesPerSec");
  }
  SECTION("no path for every rank") {
    expectSetupFails([](int, LinkEmulation& e) { e.pathTo.pop_back(); }, trncclInvalidArgument, "not one per rank");
  }
  SECTION("issue times, but not one per rank") {
    expectSetupFails(
        [](int, LinkEmulation& e) {
          e.issueTo = {0, 0};
        },
        trncclInvalidArgument, "'options.emulation' has 3 paths, 3 latencies and 2 issue times, not one per rank (3)");
  }
  SECTION("a negative issue time") {
    expectSetupFails(
        [](int, LinkEmulation& e) {
          e.issueTo = {0, -1e-6, 0};
        },
        trncclInvalidArgument, "'options.emulation.issueTo' gives rank 1 -1e-06 s");
  }
  SECTION("an issue time that is not a number") {
    expectSetupFails(
        [](int, LinkEmulation& e) {
          e.issueTo = {std::nan(""), 0, 0};
        },
        trncclInvalidArgument, "'options.emulation.issueTo' gives rank 0 nan s");
  }
  SECTION("a negative scale") {
    expectSetupFails([](int, LinkEmulation& e) { e.scale = -1; }, trncclInvalidArgument, "options.emulation.scale");
  }
  SECTION("one rank without emulation") {
    expectSetupFails(
        [](int rank, LinkEmulation& e) {
          if (rank == 1) e = LinkEmulation{};
        },
        trncclInvalidUsage, "ranks disagree on link emulation");
  }
  CHECK(jobFilesInDevShm(jobKey).empty());
}
