// Which copy path moves messages faster on this host: single copy
// (process_vm_readv between processes, memcpy between threads) or two copies
// through the FIFO. Hidden from the test run (timings are not assertions);
// run it with:  test_transports "[shm-benchmark]"
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>

#include "tests/transports/check.h"
#include "tests/transports/launch.h"
#include "transports/shm/shm_transport.h"

using namespace trnccl;
using namespace trnccl::test;
using transport::Request;
using transport::Tag;
using transport::Transport;

namespace {

constexpr size_t kSizes[] = {size_t{1} << 10, size_t{16} << 10, size_t{64} << 10, size_t{256} << 10,
                             size_t{1} << 20, size_t{4} << 20,  size_t{16} << 20, size_t{64} << 20};
constexpr const char* kPaths[] = {"cma", "fifo", "auto"};
constexpr size_t kWindow = 4;  // messages in flight to the next rank at once
constexpr int kRepeats = 3;    // the best of these is reported
constexpr size_t kBytesPerRun = size_t{128} << 20;

// Every rank streams windows of messages to the next rank of a ring and
// receives from the previous one; returns this rank's received GB/s.
double ringBandwidth(int rank, TestOutOfBand& oob, Transport& t, size_t bytes) {
  const int n = oob.size();
  std::vector<std::byte> out(bytes * kWindow, std::byte{1}), in(bytes * kWindow);
  std::vector<Request> requests(2 * kWindow);
  std::vector<Request*> pending;
  for (Request& r : requests) pending.push_back(&r);
  const size_t rounds = std::clamp<size_t>(kBytesPerRun / (bytes * kWindow), 4, 2000);
  double best = 0;
  for (int repeat = 0; repeat < kRepeats; ++repeat) {
    oob.barrier();
    const auto start = std::chrono::steady_clock::now();
    for (size_t round = 0; round < rounds; ++round) {
      for (size_t w = 0; w < kWindow; ++w) {
        const Tag tag = round * kWindow + w;
        Request& receive = requests[2 * w];
        Request& send = requests[2 * w + 1];
        receive = makeRequest((rank + n - 1) % n, tag, in.data() + w * bytes, bytes);
        send = makeRequest((rank + 1) % n, tag, out.data() + w * bytes, bytes);
        t.irecv(receive);
        t.isend(send);
      }
      drive(t, pending);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, static_cast<double>(bytes * kWindow * rounds) / seconds / 1e9);
  }
  oob.barrier();
  return best;
}

// One core per rank, round robin, as `mpirun --bind-to core` does: unbound
// ranks that the scheduler stacks on one core measure the scheduler.
void bindToCore(int rank) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(rank % static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)), &set);
  sched_setaffinity(0, sizeof set, &set);
}

}  // namespace

TEST_CASE("shm benchmark: single copy vs FIFO bandwidth by message size", "[.][shm-benchmark]") {
  constexpr size_t kCells = std::size(kSizes) * std::size(kPaths);
  auto* results = static_cast<double*>(
      mmap(nullptr, sizeof(double) * kCells, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  REQUIRE(results != MAP_FAILED);
  for (const int nranks : {2, 8}) {
    for (const Launch how : {Launch::Processes, Launch::Threads}) {
      for (size_t path = 0; path < std::size(kPaths); ++path) {
        ScopedEnv copy("TRNCCL_SHM_COPY", kPaths[path]);
        const std::string jobKey = uniqueJobKey("bench");
        requireAllOk(launch(
            how, nranks,
            [&](int rank, TestOutOfBand& oob) {
              bindToCore(rank);
              auto t = transport::createShmTransport(optionsFor(oob, jobKey));
              for (size_t i = 0; i < std::size(kSizes); ++i) {
                const double gbps = ringBandwidth(rank, oob, *t, kSizes[i]);
                if (rank == 0) results[i * std::size(kPaths) + path] = gbps;
              }
            },
            std::chrono::seconds(600)));
      }
      std::printf(
          "\nshm ring of %d ranks as %s, %d messages in flight each way: GB/s received "
          "per rank (best of %d)\n",
          nranks, launchName(how), static_cast<int>(kWindow), kRepeats);
      std::printf("%12s %16s %16s %16s\n", "bytes", "cma (1 copy)", "fifo (2 copies)", "auto");
      for (size_t i = 0; i < std::size(kSizes); ++i) {
        const double* row = results + i * std::size(kPaths);
        std::printf("%12zu %16.2f %16.2f %16.2f\n", kSizes[i], row[0], row[1], row[2]);
      }
      std::fflush(stdout);
    }
  }
  munmap(results, sizeof(double) * kCells);
}
