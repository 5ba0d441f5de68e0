#include "transports/shm/fifo.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <string>

#include "base/error.h"

namespace trnccl::transport::shm {
namespace {

// Control lines at the start of the ring.
uint64_t& headWord(std::byte* ring) { return *reinterpret_cast<uint64_t*>(ring); }
uint32_t& spaceWantedWord(std::byte* ring) { return *reinterpret_cast<uint32_t*>(ring + 8); }
uint64_t& tailWord(std::byte* ring) { return *reinterpret_cast<uint64_t*>(ring + 64); }
uint64_t& deliveredMessagesWord(std::byte* ring) { return *reinterpret_cast<uint64_t*>(ring + 72); }
uint64_t& deliveredBytesWord(std::byte* ring) { return *reinterpret_cast<uint64_t*>(ring + 80); }

std::byte* slotAt(std::byte* ring, const FifoGeometry& g, uint64_t index) {
  return ring + FifoGeometry::kControlBytes + (index % g.slots) * g.slotStride();
}
uint64_t& stampWord(std::byte* slot) { return *reinterpret_cast<uint64_t*>(slot + offsetof(SlotHeader, stamp)); }

[[noreturn]] void corrupt(int peer, const std::string& what) {
  throwError(trncclRemoteError,
             "rank " + std::to_string(peer) + " corrupted its shared-memory FIFO with this rank: " + what);
}

}  // namespace

static_assert(sizeof(SlotHeader) <= FifoGeometry::kSlotHeaderBytes);

FifoWriter::FifoWriter(std::byte* ring, FifoGeometry geometry, int peer)
    : ring_(ring), geometry_(geometry), peer_(peer) {}

bool FifoWriter::hasSpace() {
  if (head_ - tailSeen_ < geometry_.slots) return true;
  auto refresh = [this](std::memory_order order) {
    const uint64_t tail = std::atomic_ref<uint64_t>(tailWord(ring_)).load(order);
    if (tail < tailSeen_ || tail > head_)
      corrupt(peer_, "read index " + std::to_string(tail) + " outside [" + std::to_string(tailSeen_) + ", " +
                         std::to_string(head_) + "]");
    tailSeen_ = tail;
    return head_ - tailSeen_ < geometry_.slots;
  };
  if (refresh(std::memory_order_acquire)) return true;
  std::atomic_ref<uint32_t>(spaceWantedWord(ring_)).store(1, std::memory_order_seq_cst);
  return refresh(std::memory_order_seq_cst);
}

void FifoWriter::write(const SlotHeader& header, const void* payload) {
  std::byte* slot = slotAt(ring_, geometry_, head_);
  if (header.bytes != 0) std::memcpy(slot + FifoGeometry::kSlotHeaderBytes, payload, header.bytes);
  std::memcpy(slot, &header, offsetof(SlotHeader, stamp));
  ++head_;
  std::atomic_ref<uint64_t>(stampWord(slot)).store(head_, std::memory_order_release);
}

bool FifoWriter::publish() {
  if (head_ == published_) return false;
  // The reader looks at head only until it first moves (the stamps say the
  // rest), and its line also holds spaceWanted, which the reader reads after
  // every drain: storing it again would bounce the line on every message.
  if (published_ == 0) std::atomic_ref<uint64_t>(headWord(ring_)).store(head_, std::memory_order_release);
  published_ = head_;
  return true;
}

Deliveries FifoWriter::deliveries() const {
  // Messages first: the receiver stores bytes first, so the bytes read are
  // never behind the messages read.
  return {std::atomic_ref<uint64_t>(deliveredMessagesWord(ring_)).load(std::memory_order_acquire),
          std::atomic_ref<uint64_t>(deliveredBytesWord(ring_)).load(std::memory_order_acquire)};
}

FifoReader::FifoReader(std::byte* ring, FifoGeometry geometry, int peer)
    : ring_(ring), geometry_(geometry), peer_(peer) {}

bool FifoReader::started() const {
  return started_ || std::atomic_ref<uint64_t>(headWord(ring_)).load(std::memory_order_acquire) != 0;
}

uint64_t FifoReader::stampAt(uint64_t index) const {
  return std::atomic_ref<uint64_t>(stampWord(slotAt(ring_, geometry_, index))).load(std::memory_order_acquire);
}

bool FifoReader::hasNext() {
  if (!started_) {
    const uint64_t head = std::atomic_ref<uint64_t>(headWord(ring_)).load(std::memory_order_acquire);
    if (head > geometry_.slots)
      corrupt(peer_, "write index " + std::to_string(head) + " in its first publication, with " +
                         std::to_string(geometry_.slots) + " slots");
    if (head == 0) return false;
    started_ = true;
    mapSlots();
  }
  const uint64_t stamp = stampAt(tail_);
  if (stamp == tail_ + 1) return true;
  const uint64_t previous = tail_ >= geometry_.slots ? tail_ + 1 - geometry_.slots : 0;
  if (stamp != previous)
    corrupt(peer_, "slot stamp " + std::to_string(stamp) + " where " + std::to_string(previous) + " or " +
                       std::to_string(tail_ + 1) + " belongs (" + std::to_string(geometry_.slots) + " slots)");
  return false;
}

// The sender committed the slots before it first published (segment.h), but
// our mapping of them has no page-table entries yet: each slot's first use
// would fault in the middle of a call, the first lap of the ring into the
// timed calls. Best effort: MADV_POPULATE_READ needs Linux 5.14, and a failure
// only leaves the faults where they were.
void FifoReader::mapSlots() const {
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto first = reinterpret_cast<uintptr_t>(ring_ + FifoGeometry::kControlBytes);
  const auto last = reinterpret_cast<uintptr_t>(ring_ + geometry_.bytes());
  const uintptr_t begin = (first + page - 1) / page * page, end = last / page * page;  // pages wholly ours
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_READ);
}

bool FifoReader::published() const { return started() && stampAt(tail_) == tail_ + 1; }

SlotHeader FifoReader::next(const std::byte** payload) const {
  const std::byte* slot = slotAt(ring_, geometry_, tail_);
  SlotHeader header;
  std::memcpy(&header, slot, sizeof header);
  const auto kind = static_cast<uint32_t>(header.kind);
  if (kind == 0 || kind > kLastSlotKind) corrupt(peer_, "slot kind " + std::to_string(kind));
  if (header.bytes > geometry_.slotBytes)
    corrupt(peer_, "slot of " + std::to_string(header.bytes) + " bytes (slots hold " +
                       std::to_string(geometry_.slotBytes) + ")");
  *payload = slot + FifoGeometry::kSlotHeaderBytes;
  return header;
}

bool FifoReader::release() {
  if (tail_ == released_) return false;
  std::atomic_ref<uint64_t>(tailWord(ring_)).store(tail_, std::memory_order_seq_cst);
  released_ = tail_;
  std::atomic_ref<uint32_t> spaceWanted(spaceWantedWord(ring_));
  if (spaceWanted.load(std::memory_order_seq_cst) == 0) return false;
  spaceWanted.store(0, std::memory_order_seq_cst);
  return true;
}

void FifoReader::delivered(uint64_t bytes) {
  ++delivered_.messages;
  delivered_.bytes += bytes;
  // Bytes before messages: the sender reads them in the opposite order.
  std::atomic_ref<uint64_t>(deliveredBytesWord(ring_)).store(delivered_.bytes, std::memory_order_release);
  std::atomic_ref<uint64_t>(deliveredMessagesWord(ring_)).store(delivered_.messages, std::memory_order_release);
}

}  // namespace trnccl::transport::shm
