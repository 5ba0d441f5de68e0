// The shared-memory transport's block board (transport.h: BlockBoard): every
// rank's block of every call reaches every rank, in both buffers; wrong
// lengths and corrupt boards are errors naming the rank; a waiting rank is
// woken by the block it waits for, and learns that its peer left.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <thread>

#include "tests/transports/check.h"
#include "tests/transports/launch.h"
#include "transports/shm/block_board.h"
#include "transports/shm/shm_transport.h"

using namespace trnccl;
using namespace trnccl::test;
using transport::BlockBoard;
using transport::Transport;

namespace {

using Clock = std::chrono::steady_clock;

BlockBoard& boardOf(Transport& t) {
  BlockBoard* board = t.blockBoard();
  expect(board != nullptr, "the shm transport offers no block board");
  return *board;
}

// Polls for `rank`'s block of `call` as the runtime does, sleeping in wait().
const std::byte* awaitBlock(Transport& t, int rank, uint64_t call, size_t bytes) {
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  for (;;) {
    if (const void* block = boardOf(t).peerBlock(rank, call, bytes)) return static_cast<const std::byte*>(block);
    expect(Clock::now() < deadline,
           "rank " + std::to_string(rank) + "'s block of call " + std::to_string(call) + " never arrived");
    t.wait(std::chrono::milliseconds(1));
  }
}

// Each call's blocks are a different length (1 byte to the whole block, both
// layouts: in the header's line and after it) and content.
size_t bytesOf(uint64_t call) {
  const size_t sizes[] = {1, 7, 48, 49, 64, 1000, transport::shm::kBoardBlockBytes};
  return sizes[call % std::size(sizes)];
}

}  // namespace

TEST_CASE("shm block board: every rank reads every other rank's block of every call, in both buffers", "[shm][board]") {
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  const std::string jobKey = uniqueJobKey("shm-board");
  const int n = 3;
  requireAllOk(launch(how, n, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    BlockBoard& board = boardOf(*t);
    expect(board.blockBytes() == transport::shm::kBoardBlockBytes, "blockBytes()");
    // Calls run back to back, as collectives do: a rank publishes call k
    // once it has read every block of call k - 1.
    for (uint64_t call = 1; call <= 40; ++call) {
      const size_t bytes = bytesOf(call);
      fillPattern(board.ownBlock(call, bytes), bytes, rank, -1, call);
      board.publish(call, bytes);
      board.wakePeers();
      for (int q = 0; q < n; ++q) {
        if (q == rank) continue;
        const std::string mismatch = patternMismatch(awaitBlock(*t, q, call, bytes), bytes, q, -1, call);
        expect(mismatch.empty(),
               "call " + std::to_string(call) + ", rank " + std::to_string(q) + "'s block: " + mismatch);
      }
    }
    oob.barrier();  // nobody closes while a peer still reads
  }));
}

TEST_CASE("shm block board: a block of another length is InvalidUsage, a corrupt board RemoteError, naming the rank",
          "[shm][board]") {
  const std::string jobKey = uniqueJobKey("shm-board-bad");
  requireAllOk(launch(Launch::Threads, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    BlockBoard& board = boardOf(*t);
    if (rank == 1) {
      std::memset(board.ownBlock(1, 10), 1, 10);
      board.publish(1, 10);
      oob.barrier();
      oob.barrier();
      // Call 3 uses call 1's buffer, which holds call 1 now: a stamp of 7
      // can be neither.
      auto* stamp = static_cast<uint64_t*>(board.ownBlock(3, 10)) - 2;
      std::atomic_ref<uint64_t>(*stamp).store(7, std::memory_order_release);
      oob.barrier();
      oob.barrier();
      return;
    }
    oob.barrier();
    Error e = errorFrom([&] { awaitBlock(*t, 1, 1, 12); });
    expect(e.code() == trncclInvalidUsage, std::string("got ") + e.what());
    expectMentions(e.what(), {"rank 1 contributed 10 bytes", "12 were expected"});
    expect(board.peerBlock(1, 1, 10) != nullptr, "the block of the right length");
    oob.barrier();
    oob.barrier();
    e = errorFrom([&] { board.peerBlock(1, 3, 10); });
    expect(e.code() == trncclRemoteError, std::string("got ") + e.what());
    expectMentions(e.what(), {"rank 1 corrupted its shared-memory block board", "call 7"});
    e = errorFrom([&] { board.peerBlock(0, 1, 10); });
    expect(e.code() == trncclInvalidArgument, std::string("own rank: got ") + e.what());
    const size_t tooLong = board.blockBytes() + 1;
    e = errorFrom([&] { board.ownBlock(5, tooLong); });
    expect(e.code() == trncclInvalidArgument, std::string("ownBlock of a block too long: got ") + e.what());
    expectMentions(e.what(), {"bytes", "at most"});
    e = errorFrom([&] { board.publish(5, tooLong); });
    expect(e.code() == trncclInvalidArgument, std::string("publish of a block too long: got ") + e.what());
    oob.barrier();
  }));
}

TEST_CASE("shm block board: a rank waiting for the block of a peer that exits gets RemoteError naming it",
          "[shm][board]") {
  const std::string jobKey = uniqueJobKey("shm-board-exit");
  const auto results = launch(Launch::Processes, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    if (rank == 1) raise(SIGKILL);
    const Error e = errorFrom([&] { awaitBlock(*t, 1, 1, 8); });
    expect(e.code() == trncclRemoteError, std::string("got ") + e.what());
    expectMentions(e.what(), {"rank 1 (pid ", "exited", "waited for its block of call 1"});
  });
  INFO(results[0].describe() << "; " << results[1].describe());
  CHECK(results[0].ok());
  CHECK(results[1].signal == SIGKILL);
}

TEST_CASE(
    "shm block board: wait() wakes when the block that peerBlock() found missing is published and wakePeers() is "
    "called",
    "[shm][board]") {
  const std::string jobKey = uniqueJobKey("shm-board-wake");
  requireAllOk(launch(Launch::Threads, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    BlockBoard& board = boardOf(*t);
    if (rank == 1) {
      oob.barrier();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let rank 0 fall asleep first
      std::memset(board.ownBlock(1, 4), 2, 4);
      board.publish(1, 4);
      board.wakePeers();
      oob.barrier();
      return;
    }
    expect(board.peerBlock(1, 1, 4) == nullptr, "a block before it was published");
    oob.barrier();
    // Woken by the publication, not by the end of a minute.
    const auto began = Clock::now();
    t->wait(std::chrono::minutes(1));
    expect(Clock::now() - began < std::chrono::seconds(30), "wait() slept through the publication");
    expect(board.peerBlock(1, 1, 4) != nullptr, "woken, but the block is not there");
    oob.barrier();
  }));
}

TEST_CASE("shm block board: offered only when every other rank is a peer and TRNCCL_SHM_BOARD is not 0",
          "[shm][board]") {
  SECTION("TRNCCL_SHM_BOARD=0") {
    ScopedEnv off("TRNCCL_SHM_BOARD", "0");
    const std::string jobKey = uniqueJobKey("shm-board-off");
    requireAllOk(launch(Launch::Threads, 2, [&](int, TestOutOfBand& oob) {
      auto t = transport::createShmTransport(optionsFor(oob, jobKey));
      expect(t->blockBoard() == nullptr, "a board despite TRNCCL_SHM_BOARD=0");
    }));
  }
  SECTION("a rank that is not a peer") {
    const std::string jobKey = uniqueJobKey("shm-board-partial");
    requireAllOk(launch(Launch::Threads, 3, [&](int rank, TestOutOfBand& oob) {
      transport::Options options = optionsFor(oob, jobKey);
      // Ranks 0 and 1 connect to each other only; rank 2 to nobody.
      options.peers.clear();
      if (rank < 2) options.peers.push_back(1 - rank);
      auto t = transport::createShmTransport(options);
      expect(t->blockBoard() == nullptr, "a board on rank " + std::to_string(rank) + " that does not reach rank 2");
    }));
  }
}

TEST_CASE("shm block board: ranks that disagree on TRNCCL_SHM_BOARD fail setup with InvalidUsage naming it",
          "[shm][board]") {
  const std::string jobKey = uniqueJobKey("shm-board-disagree");
  const auto results = launch(Launch::Processes, 2, [&](int rank, TestOutOfBand& oob) {
    if (rank == 1) setenv("TRNCCL_SHM_BOARD", "0", 1);
    const Error e = errorFrom([&] { transport::createShmTransport(optionsFor(oob, jobKey)); });
    expect(e.code() == trncclInvalidUsage, std::string("got ") + e.what());
    expectMentions(e.what(), {"TRNCCL_SHM_BOARD"});
  });
  INFO(results[0].describe() << "; " << results[1].describe());
  CHECK(results[0].ok());
  CHECK(results[1].ok());
}
