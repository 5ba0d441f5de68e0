// The shared-memory transport's own promises, beyond the conformance suite:
// /dev/shm hygiene, setup failures, the single-copy fallback, announcements
// beyond the table, and waiting.
#include <dirent.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "tests/transports/check.h"
#include "tests/transports/launch.h"
#include "transports/shm/announcement.h"
#include "transports/shm/config.h"
#include "transports/shm/eager_window.h"
#include "transports/shm/fifo.h"
#include "transports/shm/layout.h"
#include "transports/shm/segment.h"
#include "transports/shm/shm_transport.h"

using namespace trnccl;
using namespace trnccl::test;
using transport::Request;
using transport::Tag;
using transport::Transport;

namespace {

// The transport's files in /dev/shm for one job.
std::vector<std::string> segmentsOf(const std::string& jobKey) {
  std::vector<std::string> names;
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return names;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.starts_with(transport::shm::kSegmentPrefix) && name.find(jobKey) != std::string::npos)
      names.push_back(name);
  }
  closedir(dir);
  return names;
}

// One message of `bytes` from rank 1 to rank 0, content checked.
void sendOneToRankZero(int rank, Transport& t, size_t bytes, Tag tag) {
  std::vector<std::byte> buffer(bytes);
  if (rank == 1) {
    fillPattern(buffer.data(), bytes, 1, 0, tag);
    Request send = makeRequest(0, tag, buffer.data(), bytes);
    t.isend(send);
    drive(t, {&send});
  } else {
    Request receive = makeRequest(1, tag, buffer.data(), bytes);
    t.irecv(receive);
    drive(t, {&receive});
    const std::string mismatch = patternMismatch(buffer.data(), bytes, 1, 0, tag);
    expect(mismatch.empty(), mismatch);
  }
}

// Rank 0 tells rank 1 that its sends are complete, and rank 1 progresses
// until it hears so: a send answered by a reply (a single copy's Fin)
// completes only while its receiver still progresses.
void awaitSendsComplete(int rank, Transport& t, Tag tag) {
  std::byte byte{};
  Request done = makeRequest(1 - rank, tag, &byte, 1);
  rank == 0 ? t.isend(done) : t.irecv(done);
  drive(t, {&done});
}

// Forwards to the test channel, but SIGKILLs this rank at its n-th collective.
class DyingOutOfBand : public transport::OutOfBand {
 public:
  DyingOutOfBand(TestOutOfBand& inner, int dieAtCall) : inner_(inner), dieAtCall_(dieAtCall) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  void allGather(void* data, size_t bytes) override {
    count();
    inner_.allGather(data, bytes);
  }
  void barrier() override {
    count();
    inner_.barrier();
  }

 private:
  void count() {
    if (++calls_ == dieAtCall_) raise(SIGKILL);
  }
  TestOutOfBand& inner_;
  int dieAtCall_;
  int calls_ = 0;
};

// Makes process_vm_readv fail with EPERM in this process, as a kernel or
// container that forbids cross-memory attach does. (x86-64 syscall numbers.)
void forbidCrossMemoryAttach() {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{static_cast<unsigned short>(std::size(filter)), filter};
  expect(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "PR_SET_NO_NEW_PRIVS failed");
  expect(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0, "seccomp filter refused");
}

}  // namespace

TEST_CASE("shm: segments leave /dev/shm once every rank has mapped them", "[shm]") {
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  CAPTURE(launchName(how));
  const std::string jobKey = uniqueJobKey("shm-clean");
  requireAllOk(launch(how, 4, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    oob.barrier();  // every rank is set up
    expect(segmentsOf(jobKey).empty(), "segments still in /dev/shm after setup");
    if (rank < 2) sendOneToRankZero(rank, *t, 100000, 1);
  }));
  CHECK(segmentsOf(jobKey).empty());
}

TEST_CASE("shm: a rank killed during setup leaves nothing in /dev/shm", "[shm]") {
  const int dieAtCall = GENERATE(2, 3);  // after creating its segment; after mapping its peers'
  CAPTURE(dieAtCall);
  const std::string jobKey = uniqueJobKey("shm-setup-kill");
  const auto results = launch(Launch::Processes, 3, [&](int rank, TestOutOfBand& oob) {
    if (rank == 1) {
      DyingOutOfBand dying(oob, dieAtCall);
      transport::Options options = optionsFor(oob, jobKey);
      options.oob = &dying;
      transport::createShmTransport(options);
      throw std::runtime_error("survived its own death");
    }
    const Error e = errorFrom([&] { transport::createShmTransport(optionsFor(oob, jobKey)); });
    expectMentions(e.what(), {"rank 1"});
  });
  INFO(results[0].describe() << "; " << results[1].describe() << "; " << results[2].describe());
  CHECK(results[0].ok());
  CHECK(results[1].signal == SIGKILL);
  CHECK(results[2].ok());
  CHECK(segmentsOf(jobKey).empty());
}

TEST_CASE("shm: a killed peer is a RemoteError naming it and leaves nothing in /dev/shm", "[shm]") {
  const std::string jobKey = uniqueJobKey("shm-peer-kill");
  const auto results = launch(Launch::Processes, 3, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    if (rank == 2) raise(SIGKILL);
    std::byte byte{};
    Request receive = makeRequest(2, 1, &byte, 1);
    t->irecv(receive);
    const Error e = errorFrom([&] { drive(*t, {&receive}); });
    expect(e.code() == trncclRemoteError, std::string("got ") + e.what());
    expectMentions(e.what(), {"rank 2 (pid ", "exited"});
  });
  INFO(results[0].describe() << "; " << results[1].describe() << "; " << results[2].describe());
  CHECK(results[0].ok());
  CHECK(results[1].ok());
  CHECK(results[2].signal == SIGKILL);
  CHECK(segmentsOf(jobKey).empty());
}

TEST_CASE("shm: a peer that closes its transport with requests outstanding is a RemoteError", "[shm]") {
  const std::string jobKey = uniqueJobKey("shm-peer-close");
  requireAllOk(launch(Launch::Threads, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    if (rank == 1) {
      oob.barrier();
      t.reset();
      oob.barrier();
      return;
    }
    std::byte byte{};
    Request receive = makeRequest(1, 1, &byte, 1);
    t->irecv(receive);
    oob.barrier();
    const Error e = errorFrom([&] { drive(*t, {&receive}); });
    expect(e.code() == trncclRemoteError, std::string("got ") + e.what());
    expectMentions(e.what(), {"rank 1 (pid ", "closed its shared-memory transport"});
    oob.barrier();
  }));
}

TEST_CASE(
    "shm: too little room in /dev/shm fails setup with SystemError naming /dev/shm and "
    "the bytes needed and free",
    "[shm]") {
  constexpr uint64_t kAbsurdFifoBytes = uint64_t{1} << 50;
  ScopedEnv fifo("TRNCCL_SHM_FIFO_BYTES", std::to_string(kAbsurdFifoBytes));
  const transport::shm::SegmentLayout layout{
      2, 1, {kAbsurdFifoBytes / transport::shm::kSlotBytes, transport::shm::kSlotBytes}};
  const std::string needed = std::to_string(*layout.bytes());
  const std::string jobKey = uniqueJobKey("shm-full");
  requireAllOk(launch(Launch::Threads, 2, [&](int, TestOutOfBand& oob) {
    const Error e = errorFrom([&] { transport::createShmTransport(optionsFor(oob, jobKey)); });
    expect(e.code() == trncclSystemError, std::string("got ") + e.what());
    expectMentions(e.what(),
                   {"cannot reserve " + needed + " bytes in /dev/shm", "bytes free", "TRNCCL_SHM_FIFO_BYTES"});
  }));
  CHECK(segmentsOf(jobKey).empty());
}

TEST_CASE(
    "shm: ranks that disagree on the FIFO size or on who their peers are all fail setup "
    "with InvalidUsage",
    "[shm]") {
  const std::string jobKey = uniqueJobKey("shm-disagree");
  SECTION("TRNCCL_SHM_FIFO_BYTES differs") {
    requireAllOk(launch(Launch::Processes, 2, [&](int rank, TestOutOfBand& oob) {
      if (rank == 1) setenv("TRNCCL_SHM_FIFO_BYTES", "1048576", 1);
      const Error e = errorFrom([&] { transport::createShmTransport(optionsFor(oob, jobKey)); });
      expect(e.code() == trncclInvalidUsage, std::string("got ") + e.what());
      expectMentions(e.what(), {"TRNCCL_SHM_FIFO_BYTES"});
    }));
  }
  SECTION("rank 0 lists rank 2 as a peer, rank 2 lists nobody") {
    requireAllOk(launch(Launch::Threads, 3, [&](int rank, TestOutOfBand& oob) {
      transport::Options options = optionsFor(oob, jobKey);
      options.peers = rank == 0 ? std::vector<int>{1, 2} : rank == 1 ? std::vector<int>{0} : std::vector<int>{};
      const Error e = errorFrom([&] { transport::createShmTransport(options); });
      expect(e.code() == trncclInvalidUsage, std::string("got ") + e.what());
      expectMentions(e.what(), {"rank 2 does not list rank 0"});
    }));
  }
  CHECK(segmentsOf(jobKey).empty());
}

TEST_CASE(
    "shm: TRNCCL_SHM_COPY=cma falls back to the FIFO where the kernel refuses "
    "cross-memory attach",
    "[shm]") {
  ScopedEnv copy("TRNCCL_SHM_COPY", "cma");
  const std::string jobKey = uniqueJobKey("shm-no-cma");
  requireAllOk(launch(Launch::Processes, 2, [&](int rank, TestOutOfBand& oob) {
    if (rank == 0) forbidCrossMemoryAttach();
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    sendOneToRankZero(rank, *t, (4 << 20) + 1, 1);  // refused, then streamed
    sendOneToRankZero(rank, *t, 1000, 2);           // streamed from the start
  }));
}

TEST_CASE(
    "shm: more large messages announced to one peer than it has announcement slots all "
    "arrive intact",
    "[shm]") {
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  CAPTURE(launchName(how));
  ScopedEnv copy("TRNCCL_SHM_COPY", "cma");  // single copy wherever there is a slot
  const std::string jobKey = uniqueJobKey("shm-many-announced");
  requireAllOk(launch(how, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    constexpr int kMessages = 2 * static_cast<int>(transport::shm::kAnnouncementSlots) + 5;
    constexpr size_t kBytes = 70000;
    std::vector<std::vector<std::byte>> buffers(kMessages, std::vector<std::byte>(kBytes));
    std::vector<Request> requests(kMessages);
    std::vector<Request*> all;
    for (int i = 0; i < kMessages; ++i) {
      const auto tag = static_cast<Tag>(i);
      if (rank == 0) fillPattern(buffers[i].data(), kBytes, 0, 1, tag);
      requests[i] = makeRequest(1 - rank, tag, buffers[i].data(), kBytes);
      if (rank == 0) t->isend(requests[i]);
      all.push_back(&requests[i]);
    }
    // An empty message after them: once it is in, so are all the announcements
    // (FIFO order), and they hold every slot while no receive is posted.
    Request allAnnounced = makeRequest(1 - rank, kMessages, nullptr, 0);
    if (rank == 0) {
      t->isend(allAnnounced);
      all.push_back(&allAnnounced);
    } else {
      t->irecv(allAnnounced);
      drive(*t, {&allAnnounced});
      for (int i = kMessages - 1; i >= 0; --i) t->irecv(requests[i]);
    }
    drive(*t, all);
    awaitSendsComplete(rank, *t, kMessages + 1);
    if (rank == 1) {
      for (int i = 0; i < kMessages; ++i) {
        const std::string mismatch = patternMismatch(buffers[i].data(), kBytes, 0, 1, static_cast<Tag>(i));
        expect(mismatch.empty(), mismatch);
      }
    }
  }));
}

TEST_CASE("shm: a rank that closes while its FIFO to a peer is full still sends the replies it owes that peer",
          "[shm]") {
  ScopedEnv copy("TRNCCL_SHM_COPY", "cma");  // every non-empty message announced, answered by Fin
  const std::string jobKey = uniqueJobKey("shm-last-replies");
  constexpr int kMessages = 8;  // announcements from rank 1: they fill its FIFO to rank 0 exactly
  constexpr int kFiller = 4;    // empty messages from rank 0 that rank 1 leaves in its FIFO for a while
  requireAllOk(launch(Launch::Threads, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    std::vector<std::vector<std::byte>> buffers(kMessages, std::vector<std::byte>(1000));
    std::vector<Request> requests(kMessages);
    std::vector<Request*> all;
    for (int i = 0; i < kMessages; ++i) {
      requests[i] = makeRequest(1 - rank, static_cast<Tag>(i), buffers[i].data(), 1000);
      all.push_back(&requests[i]);
    }
    if (rank == 1) {
      for (int i = 0; i < kMessages; ++i) {
        fillPattern(buffers[i].data(), 1000, 1, 0, static_cast<Tag>(i));
        t->isend(requests[i]);
      }
      t->progress();  // all announcements written: the FIFO was empty
      oob.barrier();
      // Rank 0 now receives everything and closes, owing Fins that did not
      // fit behind its filler; only then does this rank drain its FIFO.
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      drive(*t, all);
    } else {
      oob.barrier();
      Request filler[kFiller];
      for (int i = 0; i < kFiller; ++i) {
        filler[i] = makeRequest(1, static_cast<Tag>(1000 + i), nullptr, 0);
        t->isend(filler[i]);
      }
      for (Request& r : requests) t->irecv(r);
      for (Request& r : filler) all.push_back(&r);
      drive(*t, all);
      for (int i = 0; i < kMessages; ++i) {
        const std::string mismatch = patternMismatch(buffers[i].data(), 1000, 1, 0, static_cast<Tag>(i));
        expect(mismatch.empty(), mismatch);
      }
    }
  }));
}

TEST_CASE("shm: a sender runs no further than the eager window ahead of receives not yet posted", "[shm]") {
  using transport::shm::EagerWindow;
  const Launch how = GENERATE(Launch::Threads, Launch::Processes);
  const size_t bytes = GENERATE(size_t{1000}, size_t{40000});
  CAPTURE(launchName(how), bytes);
  // Whatever the window admits goes eager (complete once written); the rest
  // is announced and completes only once its receive is posted.
  const auto expectedEager =
      static_cast<int>(std::min<uint64_t>(EagerWindow::kWindowMessages, EagerWindow::kWindowBytes / bytes));
  constexpr int kMessages = 40;
  // Rank 1 tells rank 0 that every message has arrived, across processes too.
  void* shared = mmap(nullptr, sizeof(std::atomic<int>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(shared != MAP_FAILED);
  auto* arrivedRound = new (shared) std::atomic<int>(0);
  const std::string jobKey = uniqueJobKey("shm-eager-window");
  requireAllOk(launch(how, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    // Two rounds: the second sees the same window, so the first's messages
    // were counted as delivered.
    for (int round = 1; round <= 2; ++round) {
      std::vector<std::vector<std::byte>> buffers(kMessages, std::vector<std::byte>(bytes));
      std::vector<Request> requests(kMessages);
      std::vector<Request*> all;
      const auto tagOf = [&](int i) { return static_cast<Tag>(round * (kMessages + 1) + i); };
      for (int i = 0; i < kMessages; ++i) {
        requests[i] = makeRequest(1 - rank, tagOf(i), buffers[i].data(), bytes);
        all.push_back(&requests[i]);
      }
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      int completedEarly = 0;
      if (rank == 0) {
        for (int i = 0; i < kMessages; ++i) {
          fillPattern(buffers[i].data(), bytes, 0, 1, tagOf(i));
          t->isend(requests[i]);
        }
        while (arrivedRound->load() < round) {
          expect(std::chrono::steady_clock::now() < deadline, "rank 1 never saw every message arrive");
          t->progress();
          std::this_thread::yield();
        }
        completedEarly =
            static_cast<int>(std::count_if(requests.begin(), requests.end(), [](const Request& r) { return r.done; }));
      } else {
        auto allArrived = [&] {
          for (int i = 0; i < kMessages; ++i)
            if (!t->arrived(0, tagOf(i))) return false;
          return true;
        };
        while (!allArrived()) {
          expect(std::chrono::steady_clock::now() < deadline, "not every message arrived");
          t->progress();
          std::this_thread::yield();
        }
        arrivedRound->store(round);
      }
      oob.barrier();  // no receive is posted before this
      if (rank == 0)
        expect(completedEarly == expectedEager, "round " + std::to_string(round) + ": " +
                                                    std::to_string(completedEarly) +
                                                    " sends completed before their receives, where the window "
                                                    "admits " +
                                                    std::to_string(expectedEager));
      if (rank == 1)
        for (int i = kMessages - 1; i >= 0; --i) t->irecv(requests[i]);
      drive(*t, all);
      awaitSendsComplete(rank, *t, tagOf(kMessages));
      if (rank == 1) {
        for (int i = 0; i < kMessages; ++i) {
          const std::string mismatch = patternMismatch(buffers[i].data(), bytes, 0, 1, tagOf(i));
          expect(mismatch.empty(), mismatch);
        }
      }
    }
  }));
  munmap(shared, sizeof(std::atomic<int>));
}

namespace {

// A memfd of `bytes`, mapped shared (at `at` if given, replacing what is there), as trncclMemAlloc makes one.
std::pair<std::byte*, int> sharedFile(size_t bytes, void* at = nullptr) {
  const int fd = memfd_create("test-registered", MFD_CLOEXEC);
  expect(fd >= 0 && ftruncate(fd, static_cast<off_t>(bytes)) == 0, "memfd");
  void* base = mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | (at != nullptr ? MAP_FIXED : 0), fd, 0);
  expect(base != MAP_FAILED, "mmap of the memfd");
  return {static_cast<std::byte*>(base), fd};
}

}  // namespace

TEST_CASE(
    "shm: a peer process reads a send from registered memory in place, and never through a descriptor the memory "
    "was freed from",
    "[shm]") {
  const std::string jobKey = uniqueJobKey("shm-registered");
  constexpr size_t kFileBytes = 4 << 20;
  constexpr size_t kMessage = (1 << 20) + 3;  // announced: above the eager limit
  constexpr size_t kOffset = 4096 + 5;
  requireAllOk(launch(Launch::Processes, 2, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    std::vector<std::byte> received(kMessage);
    auto receive = [&](Tag tag) {
      Request r = makeRequest(0, tag, received.data(), kMessage);
      t->irecv(r);
      drive(*t, {&r});
      const std::string mismatch = patternMismatch(received.data(), kMessage, 0, 1, tag);
      expect(mismatch.empty(), "tag " + std::to_string(tag) + ": " + mismatch);
    };
    if (rank == 1) {
      receive(1);
      expect(t->memoryUse().mappedPeerBytes == kFileBytes,
             "rank 1 mapped " + std::to_string(t->memoryUse().mappedPeerBytes) +
                 " bytes of rank 0's registered memory, not its " + std::to_string(kFileBytes) + "-byte file");
      receive(2);  // through the mapping it keeps, were rank 0 to name the freed file
      awaitSendsComplete(rank, *t, 3);
      return;
    }
    auto [base, fd] = sharedFile(kFileBytes);
    t->registerRegion({base, kFileBytes, fd});
    auto send = [&](Tag tag) {
      fillPattern(base + kOffset, kMessage, 0, 1, tag);
      Request r = makeRequest(1, tag, base + kOffset, kMessage);
      r.userInput = true;
      t->isend(r);
      drive(*t, {&r});
    };
    send(1);
    // Freed while registered, and the same address and descriptor reused for
    // a new file: rank 0 must not name the registered file any more.
    munmap(base, kFileBytes);
    close(fd);
    auto [again, fdAgain] = sharedFile(kFileBytes, base);
    if (fdAgain != fd) {
      expect(dup2(fdAgain, fd) == fd, "dup2");
      close(fdAgain);
    }
    expect(again == base, "the new file is mapped where the old one was");
    send(2);
    t->deregisterRegion(base);
    awaitSendsComplete(rank, *t, 3);
    munmap(base, kFileBytes);
    close(fd);
  }));
}
