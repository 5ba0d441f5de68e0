// Announced sends (fifo.h: Rts): a large message waits in the sender's own
// buffer until the receiver copies it out, so the sender must be able to take
// the buffer back (cancelAll) knowing that the receiver will never touch it
// again. Each announcement has a state word in the *sender's* segment, which
// the receiver maps too; either side leaves Announced only by compare-and-swap,
// so exactly one side wins any race:
//
//   Announced --receiver, before each chunk it copies-->  Reading
//   Reading   --receiver, after that chunk-->             Announced, or Done after the last
//   Announced --receiver, taking it streamed (Cts)-->     Done
//   Announced --sender, cancelling-->                     Withdrawn
//
// A sender that finds Reading waits for that one chunk's copy to end; a
// receiver that finds anything but Announced leaves the buffer alone. The word
// holds the announcement's generation beside its state, so a slot reused for a
// newer message never passes for the old one.
//
// A sender has kAnnouncementSlots words per peer. Only it hands them out, and
// takes one back once the receiver has replied (Fin, Cts, Nack) or the send is
// cancelled. With every slot taken it announces without one ("stream-only"):
// the receiver must then ask for the message streamed through the FIFO, which
// only a send that is still live ever does.
#pragma once

#include <cstdint>
#include <vector>

namespace trnccl::transport::shm {

inline constexpr uint32_t kAnnouncementSlots = 64;
inline constexpr uint64_t kAnnouncementTableBytes = kAnnouncementSlots * sizeof(uint64_t);

// Names one announcement: generation << 32 | slot. Rts carries it, and so do
// the replies to it.
using AnnouncementId = uint64_t;
inline constexpr uint32_t kStreamOnlySlot = UINT32_MAX;

enum class AnnouncementState : uint32_t { Announced = 1, Reading, Done, Withdrawn };

// The sender's end: its table for one peer, in its own segment.
class OutgoingAnnouncements {
 public:
  OutgoingAnnouncements() = default;
  explicit OutgoingAnnouncements(uint64_t* words);

  // A new announcement, Announced in a free slot; stream-only if none is free.
  AnnouncementId announce();
  // True once the receiver no longer touches the buffer (Done), as it must be
  // when it replies Fin or Cts. Always true for a stream-only announcement.
  bool receiverDone(AnnouncementId id) const;
  // Cancels: true if the receiver can no longer touch the buffer (withdrawn
  // now, or it was done), false while it is Reading: try again shortly.
  bool tryWithdraw(AnnouncementId id);
  // The slot may carry a new announcement (after a reply, or tryWithdraw).
  void release(AnnouncementId id);

 private:
  uint64_t* words_ = nullptr;
  std::vector<uint32_t> freeSlots_;
  uint32_t generation_ = 0;
};

// The receiver's end: the sender's table for us, in the sender's segment.
// Ids come from the sender's Rts: check them with valid() before use.
class IncomingAnnouncements {
 public:
  IncomingAnnouncements() = default;
  explicit IncomingAnnouncements(uint64_t* words) : words_(words) {}

  static bool valid(AnnouncementId id);
  static bool streamOnly(AnnouncementId id);
  // Still Announced: the sender has not withdrawn it (true for a stream-only
  // one, which cannot tell).
  bool live(AnnouncementId id) const;
  // Announced -> Reading: false if the sender withdrew it (or the word holds
  // anything else); then the buffer must not be read.
  bool beginRead(AnnouncementId id);
  // Reading -> Announced (more chunks to read later) or Done.
  void endRead(AnnouncementId id, bool done);
  // Announced -> Done, to have the message streamed instead: false if the
  // sender withdrew it. Always true for a stream-only announcement.
  bool claim(AnnouncementId id);

 private:
  uint64_t* words_ = nullptr;
};

}  // namespace trnccl::transport::shm
