// One sender's FIFO inside a receiver's segment: a single-producer,
// single-consumer ring of fixed-size slots. The sender owns `head` and the
// slot contents, the receiver owns `tail`; each keeps its own index privately
// and only ever reads the other's, so a peer that scribbles over the shared
// copy of our index cannot move us. Everything read from the ring is
// validated before use: a buggy or dying peer yields Error(trncclRemoteError),
// never an out-of-bounds access.
//
// Ordering: the sender fills a slot's payload and header, then stores the
// header's `stamp` (release): the slot's index in the ring's history plus one.
// The receiver polls the stamp of the slot it expects next (acquire), so a
// small message costs the transfer of its header line and payload line, and
// no separate index line (Open MPI's fast boxes and NCCL's LL flags work the
// same way). A stamp is either that slot's previous one (not written yet) or
// the expected one; anything else is a corrupt ring. The sender also stores
// `head` (release) when it first publishes: until the receiver has seen it
// move, it does not touch the slots, which the sender commits lazily
// (segment.h); after that only the stamps move. The
// receiver copies the slots out, then stores tail (release); the sender loads
// tail (acquire) before reusing a slot. A sender that finds the ring full sets
// `spaceWanted` and re-reads tail; the receiver stores tail and then reads
// `spaceWanted` (all seq_cst), so one of them sees the other and the receiver
// rings the sender's doorbell.
//
// The tail line also carries the receiver's count of the eager messages it
// has delivered (Deliveries), which the sender reads to bound how far it runs
// ahead (eager_window.h). Only the receiver writes that line.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trnccl::transport::shm {

enum class SlotKind : uint32_t {
  Eager = 1,  // first chunk of a message sent without waiting for its receive
  Data,       // next chunk of an eager message, or a chunk of a streamed large one
  Rts,        // a large message is ready in the sender's buffer (address, total, announcement)
  Cts,        // receiver to sender: stream that message through the FIFO
  Fin,        // receiver to sender: pulled it by single copy, the send is complete
  Nack,       // receiver to sender: the receive is too small (total = its capacity)
};
inline constexpr uint32_t kLastSlotKind = static_cast<uint32_t>(SlotKind::Nack);

struct SlotHeader {
  SlotKind kind;
  uint32_t file;  // Rts: 1 + the sender's descriptor of the registered file holding the message; 0: none
  uint64_t tag;
  uint64_t total;         // Eager, Rts: message bytes; Nack: capacity of the receive
  uint64_t offset;        // Eager, Data: where the chunk goes in the message; Rts with a file: its inode
  uint64_t bytes;         // Eager, Data: payload bytes in this slot
  uint64_t address;       // Rts: the message, in the sender's address space (with a file: offset in it)
  uint64_t announcement;  // Rts and its replies: which one (announcement.h)
  uint64_t stamp = 0;     // set by the writer, last: see above
};

// Eager messages (and their bytes) a receiver has taken out of its FIFO and
// early pool for good: delivered into receives, refused, or dropped.
struct Deliveries {
  uint64_t messages = 0;
  uint64_t bytes = 0;
};

struct FifoGeometry {
  static constexpr uint64_t kControlBytes = 128;    // head line, tail line
  static constexpr uint64_t kSlotHeaderBytes = 64;  // SlotHeader, padded to a cache line
  uint64_t slots = 0;
  uint64_t slotBytes = 0;  // payload per slot

  uint64_t slotStride() const { return kSlotHeaderBytes + slotBytes; }
  uint64_t bytes() const { return kControlBytes + slots * slotStride(); }
};

// The sender's end. `peer` is the receiver's rank, for error messages.
class FifoWriter {
 public:
  FifoWriter() = default;
  FifoWriter(std::byte* ring, FifoGeometry geometry, int peer);

  // True if a slot can be written now. When the ring is full it asks the
  // receiver to ring our doorbell once it frees a slot.
  bool hasSpace();
  // Fill the next slot (after hasSpace()); the reader may see it at once
  // (header.stamp is ignored), but a reader that has not seen publish() yet
  // waits for it.
  void write(const SlotHeader& header, const void* payload);
  // Stores head; true if anything was written since the last publish().
  bool publish();
  // The receiver's Deliveries as last stored (unvalidated: the caller checks
  // them against what it sent).
  Deliveries deliveries() const;

 private:
  std::byte* ring_ = nullptr;
  FifoGeometry geometry_;
  int peer_ = -1;
  uint64_t head_ = 0;       // next slot to write
  uint64_t published_ = 0;  // head as last stored in shared memory
  uint64_t tailSeen_ = 0;   // the receiver's tail as last read
};

// The receiver's end. `peer` is the sender's rank, for error messages.
class FifoReader {
 public:
  FifoReader() = default;
  FifoReader(std::byte* ring, FifoGeometry geometry, int peer);

  // True if a published slot is waiting.
  bool hasNext();
  // The same, without validating what the sender wrote (for a last look
  // before sleeping; never throws).
  bool published() const;
  // The next slot's header (a validated private copy) and its payload (valid
  // until release()). Call after hasNext().
  SlotHeader next(const std::byte** payload) const;
  // Done with the slot next() returned.
  void consume() { ++tail_; }
  // Hand consumed slots back; true if the sender asked to be told.
  bool release();
  // Counts one eager message of `bytes` as delivered, for the sender to see.
  void delivered(uint64_t bytes);

 private:
  bool started() const;
  void mapSlots() const;
  uint64_t stampAt(uint64_t index) const;

  std::byte* ring_ = nullptr;
  FifoGeometry geometry_;
  int peer_ = -1;
  uint64_t tail_ = 0;      // next slot to read
  uint64_t released_ = 0;  // tail as last stored in shared memory
  bool started_ = false;   // the sender has published: its slots are committed
  Deliveries delivered_;
};

}  // namespace trnccl::transport::shm
