#include "transports/shm/announcement.h"

#include <atomic>

namespace trnccl::transport::shm {
namespace {

uint32_t slotOf(AnnouncementId id) { return static_cast<uint32_t>(id); }

// The state word of announcement `id` in `state`: its generation, then the state.
uint64_t wordOf(AnnouncementId id, AnnouncementState state) {
  return (id & ~uint64_t{UINT32_MAX}) | static_cast<uint32_t>(state);
}

std::atomic_ref<uint64_t> wordAt(uint64_t* words, AnnouncementId id) {
  return std::atomic_ref<uint64_t>(words[slotOf(id)]);
}

// Moves the word from `from` to `to` if it is `from`; returns what it was.
// acq_rel: whoever moves it sees what the other side did with the buffer
// before its own last move.
uint64_t move(uint64_t* words, AnnouncementId id, AnnouncementState from, AnnouncementState to) {
  uint64_t seen = wordOf(id, from);
  wordAt(words, id).compare_exchange_strong(seen, wordOf(id, to), std::memory_order_acq_rel, std::memory_order_acquire);
  return seen;
}

}  // namespace

OutgoingAnnouncements::OutgoingAnnouncements(uint64_t* words) : words_(words) {
  for (uint32_t slot = kAnnouncementSlots; slot > 0; --slot) freeSlots_.push_back(slot - 1);
}

AnnouncementId OutgoingAnnouncements::announce() {
  const AnnouncementId generation = AnnouncementId{++generation_} << 32;
  if (freeSlots_.empty()) return generation | kStreamOnlySlot;
  const AnnouncementId id = generation | freeSlots_.back();
  freeSlots_.pop_back();
  // The Rts that names it is published after this (release), so the receiver sees it.
  wordAt(words_, id).store(wordOf(id, AnnouncementState::Announced), std::memory_order_relaxed);
  return id;
}

bool OutgoingAnnouncements::receiverDone(AnnouncementId id) const {
  return slotOf(id) == kStreamOnlySlot ||
         wordAt(words_, id).load(std::memory_order_acquire) == wordOf(id, AnnouncementState::Done);
}

bool OutgoingAnnouncements::tryWithdraw(AnnouncementId id) {
  if (slotOf(id) == kStreamOnlySlot) return true;
  // Withdrawn now, or Done, or anything but a read in progress.
  return move(words_, id, AnnouncementState::Announced, AnnouncementState::Withdrawn) !=
         wordOf(id, AnnouncementState::Reading);
}

void OutgoingAnnouncements::release(AnnouncementId id) {
  if (slotOf(id) != kStreamOnlySlot) freeSlots_.push_back(slotOf(id));
}

bool IncomingAnnouncements::valid(AnnouncementId id) {
  return slotOf(id) < kAnnouncementSlots || slotOf(id) == kStreamOnlySlot;
}

bool IncomingAnnouncements::streamOnly(AnnouncementId id) { return slotOf(id) == kStreamOnlySlot; }

bool IncomingAnnouncements::live(AnnouncementId id) const {
  return streamOnly(id) ||
         wordAt(words_, id).load(std::memory_order_acquire) == wordOf(id, AnnouncementState::Announced);
}

bool IncomingAnnouncements::beginRead(AnnouncementId id) {
  const uint64_t announced = wordOf(id, AnnouncementState::Announced);
  return !streamOnly(id) && move(words_, id, AnnouncementState::Announced, AnnouncementState::Reading) == announced;
}

void IncomingAnnouncements::endRead(AnnouncementId id, bool done) {
  // Only we leave Reading, so a store will do; release: our reads of the
  // buffer happen before the sender can see that it may reuse it.
  wordAt(words_, id)
      .store(wordOf(id, done ? AnnouncementState::Done : AnnouncementState::Announced), std::memory_order_release);
}

bool IncomingAnnouncements::claim(AnnouncementId id) {
  const uint64_t announced = wordOf(id, AnnouncementState::Announced);
  return streamOnly(id) || move(words_, id, AnnouncementState::Announced, AnnouncementState::Done) == announced;
}

}  // namespace trnccl::transport::shm
