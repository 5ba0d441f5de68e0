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
    // Warm: the list of posted receives and the pool of early buffers grow
    // to more than the exchanges below can need at once (the peer may be a
    // round ahead): a burst whose receives wait for their messages, then one
    // whose messages wait for their receives.
    constexpr int kBurst = 4;
    auto burst = [&](bool receivesFirst, Tag first) {
      Request sends[kBurst], receives[kBurst];
      for (int i = 0; i < kBurst; ++i) {
        sends[i] = makeRequest(peer, first + static_cast<Tag>(i), out, sizeof out);
        receives[i] = makeRequest(peer, first + static_cast<Tag>(i), in, sizeof in);
      }
      if (receivesFirst)
        for (Request& r : receives) t->irecv(r);
      oob.barrier();
      for (Request& s : sends) t->isend(s);  // written at once: the FIFO has room
      oob.barrier();
      t->progress();  // everything has arrived
      if (!receivesFirst)
        for (Request& r : receives) t->irecv(r);
      drive(*t, {&sends[0], &sends[1], &sends[2], &sends[3], &receives[0], &receives[1], &receives[2], &receives[3]});
    };
    burst(true, 100000);
    burst(false, 200000);
    for (int round = 0; round < 200; ++round) exchange(round);
    const long before = allocations.load();
    for (int round = 200; round < 1200; ++round) exchange(round);
    const long during = allocations.load() - before;
    expect(during == 0,
           "rank " + std::to_string(rank) + ": " + std::to_string(during) + " allocations in 1000 warm exchanges");
  }));
}
