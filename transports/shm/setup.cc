#include "transports/shm/setup.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <exception>
#include <string>

#include "base/error.h"
#include "transports/shm/layout.h"
#include "transports/shm/link_pacing.h"

namespace trnccl::transport::shm {
namespace {

// What each rank tells every other before anything is created.
struct Announcement {
  char name[160];
  uint64_t pid;
  uint64_t pidNamespace;
  uint64_t fifoBytes;
  uint32_t fifoCount;
  uint32_t emulatedLinks;  // 0: no link emulation
  uint32_t board;          // TRNCCL_SHM_BOARD
  double emulationScale;
  char linkBoard[160];  // rank 0's, when links are emulated
};

// How a setup phase went on one rank.
struct Outcome {
  int32_t code;  // trncclSuccess, or the failure's result code
  char message[508];
};

// A fixed-size, possibly unterminated text field of an exchanged record.
std::string textOf(const char* text, size_t capacity) { return std::string(text, strnlen(text, capacity)); }

// Runs one phase of setup on every rank; if it failed anywhere, throws on
// every rank: the failing rank its own error, the others the first failure.
template <class Phase>
void collectively(OutOfBand& oob, Phase&& phase) {
  std::exception_ptr failure;
  Outcome mine{};
  try {
    phase();
  } catch (const Error& e) {
    failure = std::current_exception();
    mine.code = e.code();
    std::strncpy(mine.message, e.what(), sizeof mine.message - 1);
  } catch (const std::exception& e) {
    failure = std::current_exception();
    mine.code = trncclInternalError;
    std::strncpy(mine.message, e.what(), sizeof mine.message - 1);
  }
  std::vector<Outcome> all(static_cast<size_t>(oob.size()));
  all[static_cast<size_t>(oob.rank())] = mine;
  oob.allGather(all.data(), sizeof(Outcome));
  if (failure) std::rethrow_exception(failure);
  for (size_t r = 0; r < all.size(); ++r) {
    if (all[r].code != trncclSuccess)
      throwError(static_cast<trncclResult_t>(all[r].code), "shared-memory transport setup failed on rank " +
                                                               std::to_string(r) + ": " +
                                                               textOf(all[r].message, sizeof all[r].message));
  }
}

bool emulatesLinks(const Options& options) { return !options.emulation.linkBytesPerSec.empty(); }

void checkAgreement(const std::vector<Announcement>& all, const Config& config, int rank) {
  const Announcement& mine = all[static_cast<size_t>(rank)];
  for (size_t r = 0; r < all.size(); ++r) {
    if (all[r].fifoBytes != config.fifoBytes)
      throwError(trncclInvalidUsage, "ranks disagree on the shared-memory FIFO size (TRNCCL_SHM_FIFO_BYTES): rank " +
                                         std::to_string(rank) + " uses " + std::to_string(config.fifoBytes) +
                                         " bytes, rank " + std::to_string(r) + " " + std::to_string(all[r].fifoBytes));
    if (all[r].board != mine.board)
      throwError(trncclInvalidUsage, "ranks disagree on the shared-memory block board (TRNCCL_SHM_BOARD): rank " +
                                         std::to_string(rank) + " has " + std::to_string(mine.board) + ", rank " +
                                         std::to_string(r) + " " + std::to_string(all[r].board));
    // Bit for bit: a NaN scale is agreed on here, and refused by validateEmulation.
    if (all[r].emulatedLinks != mine.emulatedLinks ||
        std::bit_cast<uint64_t>(all[r].emulationScale) != std::bit_cast<uint64_t>(mine.emulationScale))
      throwError(trncclInvalidUsage, "ranks disagree on link emulation (TRNCCL_EMULATE_LINKS): rank " +
                                         std::to_string(rank) + " emulates " + std::to_string(mine.emulatedLinks) +
                                         " links at scale " + std::to_string(mine.emulationScale) + ", rank " +
                                         std::to_string(r) + " " + std::to_string(all[r].emulatedLinks) +
                                         " links at scale " + std::to_string(all[r].emulationScale));
  }
}

void validate(const Options& options) {
  if (options.oob == nullptr) throwInvalidArgument("options.oob", "is NULL");
  if (options.nranks != options.oob->size() || options.rank != options.oob->rank())
    throwInvalidArgument("options", "rank " + std::to_string(options.rank) + " of " + std::to_string(options.nranks) +
                                        " disagrees with the out-of-band channel's rank " +
                                        std::to_string(options.oob->rank()) + " of " +
                                        std::to_string(options.oob->size()));
  std::vector<int> peers = options.peers;
  std::sort(peers.begin(), peers.end());
  for (size_t i = 0; i < peers.size(); ++i) {
    if (peers[i] < 0 || peers[i] >= options.nranks || peers[i] == options.rank || (i > 0 && peers[i] == peers[i - 1]))
      throwInvalidArgument("options.peers",
                           "holds " + std::to_string(peers[i]) + " (not another rank, or listed twice)");
  }
}

SegmentHeader* headerOf(const Segment& segment) { return reinterpret_cast<SegmentHeader*>(segment.data()); }
int32_t* fifoTableOf(const Segment& segment) {
  return reinterpret_cast<int32_t*>(segment.data() + SegmentLayout::kFifoTableOffset);
}
DoorbellWord* doorbellOf(const Segment& segment) {
  return reinterpret_cast<DoorbellWord*>(segment.data() + SegmentLayout::kDoorbellOffset);
}
uint64_t* announcementTableOf(const Segment& segment, uint64_t offset) {
  return reinterpret_cast<uint64_t*>(segment.data() + offset);
}

void initialize(const Segment& own, const Options& options, const std::vector<int>& peers) {
  SegmentHeader* header = headerOf(own);
  header->version = kSegmentVersion;
  header->rank = options.rank;
  header->nranks = options.nranks;
  header->fifoCount = static_cast<uint32_t>(peers.size());
  for (size_t i = 0; i < peers.size(); ++i) fifoTableOf(own)[peers[i]] = static_cast<int32_t>(i + 1);
  std::atomic_ref<uint64_t>(header->magic).store(kSegmentMagic, std::memory_order_release);
}

// What a segment needs before any message: the header and tables, each
// FIFO's control lines, the announcement tables. The FIFOs' slots wait for
// their writer's first message (lazy: a ring only ever writes to two peers).
std::vector<ByteRange> reservedAtOnce(const SegmentLayout& layout) {
  std::vector<ByteRange> ranges{{0, layout.fifoOffset(0)}};
  for (uint32_t i = 0; i < layout.fifoCount; ++i) ranges.push_back({layout.fifoOffset(i), FifoGeometry::kControlBytes});
  ranges.push_back({layout.announcementTableOffset(0), uint64_t{layout.fifoCount} * kAnnouncementTableBytes});
  ranges.push_back({layout.boardOffset(), kBoardBytes});
  return ranges;
}

PeerLink link(const Options& options, const std::vector<Announcement>& all, const Connections& connections,
              const SegmentLayout& ownLayout, int peer, uint32_t ownFifoIndex) {
  const Announcement& theirs = all[static_cast<size_t>(peer)];
  const Announcement& mine = all[static_cast<size_t>(options.rank)];
  const std::string name = textOf(theirs.name, sizeof theirs.name);
  SegmentLayout layout{options.nranks, theirs.fifoCount, ownLayout.fifo};
  PeerLink link;
  link.rank = peer;
  link.segment = Segment::open(name, layout.bytes().value_or(0));
  const SegmentHeader* header = headerOf(link.segment);
  if (std::atomic_ref<uint64_t>(headerOf(link.segment)->magic).load(std::memory_order_acquire) != kSegmentMagic ||
      header->version != kSegmentVersion || header->rank != peer || header->nranks != options.nranks)
    throwError(trncclSystemError, "shared-memory segment " + name + " of rank " + std::to_string(peer) +
                                      " is not a segment of this communicator");
  const int32_t entry = fifoTableOf(link.segment)[options.rank];
  if (entry <= 0 || static_cast<uint32_t>(entry) > theirs.fifoCount)
    throwError(trncclInvalidUsage, "rank " + std::to_string(options.rank) + " lists rank " + std::to_string(peer) +
                                       " as a shared-memory peer, but rank " + std::to_string(peer) +
                                       " does not list rank " + std::to_string(options.rank));
  const uint64_t toPeerOffset = layout.fifoOffset(static_cast<uint32_t>(entry - 1));
  link.toPeer = FifoWriter(link.segment.data() + toPeerOffset, layout.fifo, peer);
  link.toPeerSlots = {toPeerOffset + FifoGeometry::kControlBytes, layout.fifo.bytes() - FifoGeometry::kControlBytes};
  link.toPeerCommitted = !Segment::committingLaterWorks();
  link.fromPeer = FifoReader(connections.own.data() + ownLayout.fifoOffset(ownFifoIndex), ownLayout.fifo, peer);
  link.announcementsToPeer =
      OutgoingAnnouncements(announcementTableOf(connections.own, ownLayout.announcementTableOffset(ownFifoIndex)));
  link.announcementsFromPeer = IncomingAnnouncements(
      announcementTableOf(link.segment, layout.announcementTableOffset(static_cast<uint32_t>(entry - 1))));
  link.doorbell = Doorbell(doorbellOf(link.segment));
  link.closed = &headerOf(link.segment)->closed;
  link.board = BoardReader(link.segment.data() + layout.boardOffset(), peer);
  link.process = PeerProcess(static_cast<pid_t>(theirs.pid), theirs.pidNamespace == mine.pidNamespace);
  return link;
}

}  // namespace

Connections connect(const Options& options, const Config& config) {
  validate(options);
  allowPeerMemoryReads();
  OutOfBand& oob = *options.oob;
  std::vector<int> peers = options.peers;
  std::sort(peers.begin(), peers.end());
  const FifoGeometry geometry{config.fifoBytes / kSlotBytes, kSlotBytes};
  const SegmentLayout layout{options.nranks, static_cast<uint32_t>(peers.size()), geometry};

  std::vector<Announcement> all(static_cast<size_t>(options.nranks));
  Announcement& mine = all[static_cast<size_t>(options.rank)];
  std::strncpy(mine.name, segmentName(options.jobKey, "r" + std::to_string(options.rank)).c_str(),
               sizeof mine.name - 1);
  mine.pid = static_cast<uint64_t>(getpid());
  mine.pidNamespace = pidNamespaceId();
  mine.fifoBytes = config.fifoBytes;
  mine.fifoCount = layout.fifoCount;
  mine.board = config.board ? 1 : 0;
  const bool emulated = emulatesLinks(options);
  if (emulated) {
    // Validated in the first phase below, so that bad settings fail every rank.
    mine.emulatedLinks = static_cast<uint32_t>(std::min<size_t>(options.emulation.linkBytesPerSec.size(), UINT32_MAX));
    mine.emulationScale = options.emulation.scale;
    if (options.rank == 0)
      std::strncpy(mine.linkBoard, segmentName(options.jobKey, "links").c_str(), sizeof mine.linkBoard - 1);
  }
  oob.allGather(all.data(), sizeof(Announcement));
  const std::string linkBoard = textOf(all[0].linkBoard, sizeof all[0].linkBoard);

  auto unlinkAll = [&all] {
    const std::string ours = std::string("/") + kSegmentPrefix;
    for (const Announcement& a : all) {
      for (const std::string& name : {textOf(a.name, sizeof a.name), textOf(a.linkBoard, sizeof a.linkBoard)})
        if (name.starts_with(ours)) Segment::unlink(name);  // never anyone else's file
    }
  };
  try {
    checkAgreement(all, config, options.rank);
    Connections connections;
    connections.fifo = geometry;
    collectively(oob, [&] {
      if (emulated) validateEmulation(options.emulation, options.nranks);
      const std::string purpose = "the shared-memory transport's FIFOs (" + std::to_string(peers.size()) + " peers x " +
                                  std::to_string(geometry.bytes()) +
                                  " bytes, TRNCCL_SHM_FIFO_BYTES=" + std::to_string(config.fifoBytes) + ")";
      cpu_set_t cores;
      const bool pinned = sched_getaffinity(0, sizeof cores, &cores) == 0;
      const std::vector<ByteRange> reserved = reservedAtOnce(layout);
      connections.own = Segment::create(textOf(mine.name, sizeof mine.name), layout.bytes().value_or(UINT64_MAX),
                                        purpose, pinned ? &cores : nullptr, reserved);
      connections.ownReservedBytes = layout.bytes().value_or(0);
      if (Segment::committingLaterWorks()) {
        connections.ownReservedBytes = 0;
        for (const ByteRange& r : reserved) connections.ownReservedBytes += r.bytes;
      }
      initialize(connections.own, options, peers);
      if (emulated && options.rank == 0) {
        connections.linkBoard =
            Segment::create(linkBoard, LinkBoard::bytes(mine.emulatedLinks),
                            "the link board of link emulation (" + std::to_string(mine.emulatedLinks) + " links)");
        LinkBoard::initialize(connections.linkBoard.data(), mine.emulatedLinks);
      }
    });
    connections.doorbell = Doorbell(doorbellOf(connections.own));
    connections.closed = &headerOf(connections.own)->closed;
    connections.board = BoardWriter(connections.own.data() + layout.boardOffset());
    collectively(oob, [&] {
      for (size_t i = 0; i < peers.size(); ++i)
        connections.peers.push_back(link(options, all, connections, layout, peers[i], static_cast<uint32_t>(i)));
      if (emulated && options.rank != 0) {
        connections.linkBoard = Segment::open(linkBoard, LinkBoard::bytes(mine.emulatedLinks));
        LinkBoard::check(connections.linkBoard.data(), mine.emulatedLinks, linkBoard);
      }
    });
    unlinkAll();
    return connections;
  } catch (...) {
    unlinkAll();
    throw;
  }
}

}  // namespace trnccl::transport::shm
