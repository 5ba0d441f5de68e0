// The shared-memory transport's small-message path allocates nothing once
// warm: every operator new of this test program is counted, and each rank (a
// process of its own) counts its allocations over a thousand exchanges of
// small eager messages, half of them arriving before their receive.
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "tests/transports/check.h"
#include "tests/transports/launch.h"
#include "transports/shm/shm_transport.h"

namespace {
std::atomic<long> allocations{0};
}  // namespace

void* operator new(size_t bytes) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t bytes) { return operator new(bytes); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

using namespace trnccl;
using namespace trnccl::test;
using transport::Request;
using transport::Tag;

TEST_CASE("shm: warm small-message exchanges allocate nothing, early or expected", "[shm][allocations]") {
  const std::string jobKey = uniqueJobKey("shm-allocations");
  requireAllOk(launch(Launch::Processes, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    const int peer = 1 - rank;
    std::byte out[1024], in[1024];
    auto exchange = [&](int round) {
      const size_t bytes = size_t{8} << (round % 8);  // 8 B to 1 KiB
      const Tag tag = static_cast<Tag>(round);
      std::memset(out, rank * 100 + round % 100, bytes);
      Request send = makeRequest(peer, tag, out, bytes);
      Request receive = makeRequest(peer, tag, in, sizeof in);
      t->isend(send);
      // Odd rounds: the peer's message is most likely in before the receive.
      if (round % 2 == 1)
        for (int i = 0; i < 200; ++i) t->progress();
      t->irecv(receive);
      while (!send.done || !receive.done) t->progress();
      if (receive.transferred != bytes || in[bytes - 1] != static_cast<std::byte>(peer * 100 + round % 100))
        throw std::runtime_error("round " + std::to_string(round) + ": wrong message");
    };
    // Warm: queues, lists and early buffers grow to what the exchanges below
    // can need at once (the peer may be a round ahead), and more.
    constexpr int kBurst = 4;
    Request burst[2 * kBurst];
    for (int i = 0; i < kBurst; ++i) {
      burst[i] = makeRequest(peer, static_cast<Tag>(100000 + i), out, sizeof out);
      t->isend(burst[i]);
    }
    for (int i = 0; i < 1000; ++i) t->progress();
    for (int i = 0; i < kBurst; ++i) {
      burst[kBurst + i] = makeRequest(peer, static_cast<Tag>(100000 + i), in, sizeof in);
      t->irecv(burst[kBurst + i]);
    }
    drive(*t, {&burst[0], &burst[1], &burst[2], &burst[3], &burst[4], &burst[5], &burst[6], &burst[7]});
    for (int round = 0; round < 200; ++round) exchange(round);
    const long before = allocations.load();
    for (int round = 200; round < 1200; ++round) exchange(round);
    const long during = allocations.load() - before;
    expect(during == 0,
           "rank " + std::to_string(rank) + ": " + std::to_string(during) + " allocations in 1000 warm exchanges");
  }));
}
