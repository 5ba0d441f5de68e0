// trncclCommMemStats and lazy buffers: what a communicator holds, against the
// formulas of docs/memory.md worked out here by hand, before and after
// collectives that talk to one neighbour (ring) or to every peer (mesh).
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/scoped_env.h"
#include "thread_ranks.h"

using namespace trnccl::test;

namespace {

// docs/memory.md, shared memory with the default TRNCCL_SHM_FIFO_BYTES
// (512 KiB: 8 slots of 64 KiB): a rank's segment reserves a 4 KiB page of
// header and tables, per peer a FIFO's two control lines (128 B) and an
// announcement table (512 B), and its block board (two buffers of a 64 B
// header line and 2 KiB); each FIFO it writes to costs its 8 slots of a
// 64 B header and 64 KiB of payload when first used.
constexpr unsigned long long kSegmentHead = 4096, kPerPeer = 128 + 512, kBoard = 2 * (64 + 2048),
                             kFifoSlots = 8 * (64 + 65536);

trncclMemStats_t statsOf(trncclComm_t comm) {
  trncclMemStats_t stats;
  std::memset(&stats, 0xff, sizeof stats);
  REQUIRE(trncclCommMemStats(comm, &stats) == trncclSuccess);
  return stats;
}

void allReduce(const std::vector<trncclComm_t>& comms, size_t count) {
  std::vector<int> ok(comms.size(), 0);
  inThreads(static_cast<int>(comms.size()), [&](int r) {
    std::vector<float> send(count, 1.0f), recv(count, 0.0f);
    ok[static_cast<size_t>(r)] = trncclAllReduce(send.data(), recv.data(), count, trncclFloat32, trncclSum,
                                                 comms[static_cast<size_t>(r)], nullptr) == trncclSuccess &&
                                 recv[count - 1] == static_cast<float>(comms.size());
    return 0;
  });
  REQUIRE(ok == std::vector<int>(comms.size(), 1));
}

}  // namespace

TEST_CASE("memory: shared-memory FIFOs are committed only for the peers a rank sends to", "[memory]") {
  ScopedEnv check("TRNCCL_CHECK", "0");  // its call comparison talks to every peer
  ScopedEnv fifo("TRNCCL_SHM_FIFO_BYTES", nullptr), slices("TRNCCL_SLICE_BYTES", nullptr);
  const std::string algorithm = GENERATE("ring", "mesh");
  CAPTURE(algorithm);
  ScopedEnv algo("TRNCCL_ALGO", algorithm.c_str());
  constexpr int kRanks = 4;
  std::vector<trncclComm_t> comms(kRanks, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), kRanks, nullptr) == trncclSuccess);
  const unsigned long long reserved = kSegmentHead + (kRanks - 1) * kPerPeer + kBoard;
  for (trncclComm_t c : comms) {
    const trncclMemStats_t fresh = statsOf(c);
    CHECK(fresh.peersWithBuffers == 0);
    CHECK(fresh.sharedBytes == reserved);
    CHECK(fresh.registeredBytes == 0);
  }
  if (algorithm == "mesh") {
    allReduce(comms, 64);  // fits the block board: no FIFO at all
    for (trncclComm_t c : comms) CHECK(statsOf(c).peersWithBuffers == 0);
  }
  allReduce(comms, 4096);  // 16 KiB: eager messages only, no replies
  // A ring sends to the next rank only; a mesh to every peer.
  const int used = algorithm == "ring" ? 1 : kRanks - 1;
  for (trncclComm_t c : comms) {
    const trncclMemStats_t after = statsOf(c);
    CHECK(after.peersWithBuffers == used);
    CHECK(after.sharedBytes == reserved + used * kFifoSlots);
  }
  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
}

TEST_CASE("memory: tcp buffers exist only for the peers a rank exchanges frames with", "[memory][tcp]") {
  ScopedEnv check("TRNCCL_CHECK", "0"), algo("TRNCCL_ALGO", "ring");
  ScopedEnv topo("TRNCCL_TOPO", "trn1.2xlarge:2"), transport("TRNCCL_TRANSPORT", "tcp");
  // Ranks 0 and 2 write a shared-memory FIFO and receive over tcp. Ranks 1 and
  // 3 read shared memory and send over tcp: over one socket per peer that
  // needs no buffer; over several (rails), a sender keeps each frame until it
  // is acknowledged and reads the acknowledgements, so it has buffers for the
  // one peer it sends to, and none for the others.
  const auto [sockets, expected] = GENERATE(table<const char*, std::vector<int>>({
      {"1", {2, 0, 2, 0}},
      {"2", {2, 1, 2, 1}},
  }));
  CAPTURE(sockets);
  ScopedEnv perPeer("TRNCCL_TCP_SOCKETS_PER_PEER", sockets);
  std::vector<trncclComm_t> comms(4, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), 4, nullptr) == trncclSuccess);
  for (trncclComm_t c : comms) CHECK(statsOf(c).peersWithBuffers == 0);
  allReduce(comms, 64);  // ring 0 -> 1 -> 2 -> 3 -> 0; 1 -> 2 and 3 -> 0 cross instances over tcp
  for (size_t r = 0; r < comms.size(); ++r) {
    CAPTURE(r);
    CHECK(statsOf(comms[r]).peersWithBuffers == expected[r]);
  }
  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
}

TEST_CASE("memory: staging buffers appear with the first staged step and stay within the bound", "[memory]") {
  ScopedEnv algo("TRNCCL_ALGO", "ring"), slices("TRNCCL_SLICE_BYTES", "65536"), window("TRNCCL_WINDOW", "2");
  std::vector<trncclComm_t> comms(2, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), 2, nullptr) == trncclSuccess);
  CHECK(statsOf(comms[0]).hostBytes == 0);
  allReduce(comms, 1 << 20);
  // One channel, two steps in flight, 2 slots each of a receive and a send
  // buffer of 64 KiB: at most 512 KiB. A ring's reduce-scatter receives into
  // staging, so some is there.
  const trncclMemStats_t stats = statsOf(comms[0]);
  CHECK(stats.hostBytes > 0);
  CHECK(stats.hostBytes <= 2 * 2 * 2 * 65536);
  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
}

TEST_CASE("memory: bad arguments are trncclInvalidArgument naming the argument", "[memory]") {
  std::vector<trncclComm_t> comms(1, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), 1, nullptr) == trncclSuccess);
  CHECK(trncclCommMemStats(comms[0], nullptr) == trncclInvalidArgument);
  CHECK(std::string(trncclGetLastError(comms[0])).find("'stats'") != std::string::npos);
  trncclMemStats_t stats;
  CHECK(trncclCommMemStats(nullptr, &stats) == trncclInvalidArgument);
  CHECK(std::string(trncclGetLastError(nullptr)).find("'comm'") != std::string::npos);
  CHECK(trncclCommDestroy(comms[0]) == trncclSuccess);
}

// Run by ctest inside its own mount namespace with a 16 MiB /dev/shm (see
// CMakeLists.txt), hidden from the normal run: it fills /dev/shm on purpose.
TEST_CASE(
    "memory: a /dev/shm that fills after setup fails the first collective on every rank, naming "
    "/dev/shm, and leaves nothing behind",
    "[.][shm-full]") {
  ScopedEnv algo("TRNCCL_ALGO", "ring"), timeout("TRNCCL_TIMEOUT_MS", "20000");
  constexpr int kRanks = 2;
  std::vector<trncclComm_t> comms(kRanks, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), kRanks, nullptr) == trncclSuccess);
  const std::string filler = "/dev/shm/fill-" + std::to_string(getpid());
  {
    const int fd = open(filler.c_str(), O_CREAT | O_RDWR | O_EXCL, 0600);
    REQUIRE(fd >= 0);
    struct statvfs fs;
    REQUIRE(fstatvfs(fd, &fs) == 0);
    REQUIRE(posix_fallocate(fd, 0, static_cast<off_t>(fs.f_bavail * fs.f_frsize)) == 0);
    close(fd);
  }
  std::vector<std::string> errors(kRanks);
  inThreads(kRanks, [&](int r) {
    std::vector<float> send(64, 1.0f), recv(64, 0.0f);
    trncclComm_t c = comms[static_cast<size_t>(r)];
    if (trncclAllReduce(send.data(), recv.data(), 64, trncclFloat32, trncclSum, c, nullptr) != trncclSuccess)
      errors[static_cast<size_t>(r)] = trncclGetLastError(c);
    return 0;
  });
  unlink(filler.c_str());
  for (const std::string& e : errors) {
    CAPTURE(e);
    CHECK(e.find("/dev/shm") != std::string::npos);
  }
  for (trncclComm_t c : comms) CHECK(trncclCommAbort(c) == trncclSuccess);
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm")) left.push_back(entry.path());
  CHECK(left.empty());
  // Nothing was lost: with room again, a new communicator works.
  REQUIRE(trncclCommInitAll(comms.data(), kRanks, nullptr) == trncclSuccess);
  allReduce(comms, 64);
  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
}
