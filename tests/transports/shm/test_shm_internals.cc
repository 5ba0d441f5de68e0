// The shared-memory transport's parts on their own: a FIFO must refuse the
// impossible values a buggy or dying peer can leave in shared memory, an
// announcement goes to exactly one of reader and canceller, and the doorbell
// must wake its sleeper.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "base/error.h"
#include "transports/shm/announcement.h"
#include "transports/shm/config.h"
#include "transports/shm/doorbell.h"
#include "transports/shm/fifo.h"

using namespace trnccl;
using namespace trnccl::transport::shm;

namespace {

constexpr int kPeer = 5;

// A FIFO in ordinary memory (zeroed, as a fresh segment is).
struct LocalFifo {
  explicit LocalFifo(FifoGeometry g) : geometry(g), memory(g.bytes() / 8 + 1, 0) {}
  std::byte* ring() { return reinterpret_cast<std::byte*>(memory.data()); }
  FifoGeometry geometry;
  std::vector<uint64_t> memory;
};

SlotHeader dataSlot(uint64_t tag, uint64_t bytes) { return {SlotKind::Data, 0, tag, 1000, 0, bytes, 0, 0}; }

void requireRemoteErrorNamingPeer(const std::function<void()>& step) {
  try {
    step();
    FAIL("no error");
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(e.code() == trncclRemoteError);
    CHECK(std::string(e.what()).find("rank 5") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("shm FIFO: slots arrive in order, a full FIFO asks to be told when there is room", "[shm][fifo]") {
  LocalFifo fifo({4, 64});
  FifoWriter writer(fifo.ring(), fifo.geometry, kPeer);
  FifoReader reader(fifo.ring(), fifo.geometry, kPeer);
  const char text[] = "hello";
  for (uint64_t tag = 0; tag < 4; ++tag) {
    REQUIRE(writer.hasSpace());
    writer.write(dataSlot(tag, sizeof text), text);
  }
  CHECK_FALSE(writer.hasSpace());
  CHECK_FALSE(reader.hasNext());  // nothing published yet
  REQUIRE(writer.publish());
  for (uint64_t tag = 0; tag < 4; ++tag) {
    REQUIRE(reader.hasNext());
    const std::byte* payload = nullptr;
    const SlotHeader slot = reader.next(&payload);
    CHECK(slot.tag == tag);
    CHECK(slot.bytes == sizeof text);
    CHECK(std::memcmp(payload, text, sizeof text) == 0);
    reader.consume();
  }
  CHECK_FALSE(reader.hasNext());
  CHECK(reader.release());  // the writer found the FIFO full and asked
  CHECK(writer.hasSpace());
  CHECK_FALSE(reader.release());
}

TEST_CASE(
    "shm FIFO: impossible indices and slot headers from a peer are RemoteErrors, never "
    "followed",
    "[shm][fifo]") {
  LocalFifo fifo({4, 64});
  FifoWriter rogue(fifo.ring(), fifo.geometry, kPeer);
  const char payload[64] = {};
  SECTION("a write index more than a FIFO ahead") {
    FifoReader reader(fifo.ring(), fifo.geometry, kPeer);
    for (int i = 0; i < 5; ++i) rogue.write(dataSlot(1, 8), payload);  // ignores hasSpace()
    rogue.publish();
    requireRemoteErrorNamingPeer([&] { reader.hasNext(); });
  }
  SECTION("a slot stamped out of turn, after the first publication") {
    FifoReader reader(fifo.ring(), fifo.geometry, kPeer);
    rogue.write(dataSlot(1, 8), payload);
    rogue.publish();
    REQUIRE(reader.hasNext());
    reader.consume();
    // Slot 1's stamp must be 0 (not written yet) or 2; a writer a lap ahead
    // (slots 0-3, then 0 and 1 again) leaves 6 there.
    FifoWriter lapper(fifo.ring(), fifo.geometry, kPeer);
    for (int i = 0; i < 6; ++i) lapper.write(dataSlot(2, 8), payload);
    requireRemoteErrorNamingPeer([&] { reader.hasNext(); });
  }
  SECTION("an unknown slot kind") {
    FifoReader reader(fifo.ring(), fifo.geometry, kPeer);
    rogue.write({static_cast<SlotKind>(99), 0, 1, 0, 0, 0, 0, 0}, payload);
    rogue.publish();
    REQUIRE(reader.hasNext());
    const std::byte* data = nullptr;
    requireRemoteErrorNamingPeer([&] { reader.next(&data); });
  }
  SECTION("a slot claiming more bytes than a slot holds") {
    LocalFifo small({4, 32});                         // the reader's view: slots of 32 bytes
    FifoWriter writer(small.ring(), {1, 64}, kPeer);  // one slot at the same place, 64 bytes
    FifoReader reader(small.ring(), small.geometry, kPeer);
    writer.write(dataSlot(1, 48), payload);
    writer.publish();
    REQUIRE(reader.hasNext());
    const std::byte* data = nullptr;
    requireRemoteErrorNamingPeer([&] { reader.next(&data); });
  }
  SECTION("a read index beyond what was written") {
    FifoReader liar(fifo.ring(), fifo.geometry, kPeer);
    for (int i = 0; i < 4; ++i) rogue.write(dataSlot(1, 8), payload);
    rogue.publish();
    for (int i = 0; i < 9; ++i) liar.consume();
    liar.release();
    requireRemoteErrorNamingPeer([&] { rogue.hasSpace(); });
  }
}

TEST_CASE("shm doorbell: a ring wakes the sleeper, without one it sleeps its limit", "[shm][doorbell]") {
  DoorbellWord word{};
  Doorbell bell(&word);
  using clock = std::chrono::steady_clock;

  const uint32_t seen = bell.sequence();
  bell.ring();
  auto start = clock::now();
  bell.sleep(seen, std::chrono::seconds(5));  // rung since `seen`: no sleep at all
  CHECK(clock::now() - start < std::chrono::seconds(1));

  std::thread ringer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    bell.ring();
  });
  start = clock::now();
  bell.sleep(bell.sequence(), std::chrono::seconds(5));
  ringer.join();
  CHECK(clock::now() - start < std::chrono::seconds(3));

  start = clock::now();
  bell.sleep(bell.sequence(), std::chrono::milliseconds(100));
  CHECK(clock::now() - start >= std::chrono::milliseconds(90));
}

TEST_CASE("shm doorbell: work the sleeper looks for itself rings only a sleeper, and is never missed",
          "[shm][doorbell]") {
  DoorbellWord word{};
  Doorbell bell(&word);
  using clock = std::chrono::steady_clock;
  std::atomic<bool> work{false};
  auto arrived = [&] { return work.load(); };

  const uint32_t idle = bell.sequence();
  bell.ringIfSleeping();  // nobody sleeps: the doorbell's line is left alone
  CHECK(bell.sequence() == idle);

  work = true;  // published before the sleeper's last look: it does not sleep
  auto start = clock::now();
  bell.sleep(bell.sequence(), std::chrono::seconds(5), arrived);
  CHECK(clock::now() - start < std::chrono::seconds(1));

  work = false;
  for (int round = 0; round < 20; ++round) {  // published at any moment while it goes to sleep
    const uint32_t seen = bell.sequence();
    std::thread ringer([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(round * 50));
      work = true;
      bell.ringIfSleeping();
    });
    start = clock::now();
    bell.sleep(seen, std::chrono::seconds(5), arrived);
    ringer.join();
    CHECK(clock::now() - start < std::chrono::seconds(3));
    work = false;
  }
}

TEST_CASE(
    "shm announcements: the receiver reads only what is still announced, and the sender "
    "withdraws only what is not being read",
    "[shm][announcement]") {
  std::vector<uint64_t> table(kAnnouncementSlots, 0);  // zeroed, as a fresh segment is
  OutgoingAnnouncements sender(table.data());
  IncomingAnnouncements receiver(table.data());

  SECTION("read chunk by chunk; withdrawn between chunks") {
    const AnnouncementId id = sender.announce();
    REQUIRE(IncomingAnnouncements::valid(id));
    REQUIRE_FALSE(IncomingAnnouncements::streamOnly(id));
    REQUIRE(receiver.beginRead(id));
    CHECK_FALSE(sender.tryWithdraw(id));  // a chunk is being copied: wait
    receiver.endRead(id, /*done=*/false);
    CHECK(sender.tryWithdraw(id));
    CHECK_FALSE(receiver.beginRead(id));
    CHECK_FALSE(receiver.live(id));
  }
  SECTION("read to the end; a late cancel finds it done") {
    const AnnouncementId id = sender.announce();
    REQUIRE(receiver.beginRead(id));
    receiver.endRead(id, /*done=*/true);
    CHECK(sender.receiverDone(id));
    CHECK(sender.tryWithdraw(id));
  }
  SECTION("claimed for streaming, or withdrawn first: exactly one wins") {
    const AnnouncementId claimed = sender.announce();
    CHECK(receiver.claim(claimed));
    CHECK(sender.receiverDone(claimed));
    CHECK(sender.tryWithdraw(claimed));
    const AnnouncementId withdrawn = sender.announce();
    CHECK(sender.tryWithdraw(withdrawn));
    CHECK_FALSE(receiver.claim(withdrawn));
    CHECK_FALSE(sender.receiverDone(withdrawn));
  }
  SECTION("a slot reused for a newer announcement never passes for the old one") {
    const AnnouncementId old = sender.announce();
    REQUIRE(sender.tryWithdraw(old));
    sender.release(old);
    const AnnouncementId fresh = sender.announce();
    REQUIRE(static_cast<uint32_t>(fresh) == static_cast<uint32_t>(old));  // same slot
    CHECK_FALSE(receiver.live(old));
    CHECK_FALSE(receiver.beginRead(old));
    CHECK_FALSE(receiver.claim(old));
    CHECK(receiver.live(fresh));
    CHECK(receiver.beginRead(fresh));
  }
  SECTION("with every slot taken, announcements are stream-only") {
    for (uint32_t i = 0; i < kAnnouncementSlots; ++i)
      REQUIRE_FALSE(IncomingAnnouncements::streamOnly(sender.announce()));
    const AnnouncementId id = sender.announce();
    CHECK(IncomingAnnouncements::streamOnly(id));
    CHECK(IncomingAnnouncements::valid(id));
    CHECK_FALSE(receiver.beginRead(id));  // never read in place
    CHECK(receiver.claim(id));
    CHECK(sender.receiverDone(id));
    CHECK(sender.tryWithdraw(id));
  }
  SECTION("slot indices and states a peer made up are refused") {
    CHECK_FALSE(IncomingAnnouncements::valid(kAnnouncementSlots));
    CHECK_FALSE(IncomingAnnouncements::valid((AnnouncementId{7} << 32) | 1000000));
    const AnnouncementId id = sender.announce();
    table[static_cast<uint32_t>(id)] = (id & ~uint64_t{UINT32_MAX}) | 99;  // no such state
    CHECK_FALSE(receiver.beginRead(id));
    CHECK_FALSE(receiver.claim(id));
    CHECK_FALSE(sender.receiverDone(id));
  }
}

TEST_CASE("shm copy path: auto pulls from another process in one copy only where ranks outnumber the cores",
          "[shm][copy-path]") {
  // With a core each, two cache-resident copies through the FIFO beat process_vm_readv on this host;
  // with CPU time scarce, one copy wins (config.h).
  CHECK_FALSE(pullsFromOtherProcesses(CopyPath::Auto, false));
  CHECK(pullsFromOtherProcesses(CopyPath::Auto, true));
  CHECK(pullsFromOtherProcesses(CopyPath::Cma, false));
  CHECK(pullsFromOtherProcesses(CopyPath::Cma, true));
  CHECK_FALSE(pullsFromOtherProcesses(CopyPath::Fifo, false));
  CHECK_FALSE(pullsFromOtherProcesses(CopyPath::Fifo, true));
}
