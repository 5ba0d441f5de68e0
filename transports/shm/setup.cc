#include "transports/shm/setup.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <string>

#include "base/error.h"
#include "transports/shm/layout.h"

namespace trnccl::transport::shm {
namespace {

// What each rank tells every other before anything is created.
struct Announcement {
  char name[160];
  uint64_t pid;
  uint64_t pidNamespace;
  uint64_t fifoBytes;
  uint32_t fifoCount;
  uint32_t reserved;
};

// How a setup phase went on one rank.
struct Outcome {
  int32_t code;  // trncclSuccess, or the failure's result code
  char message[508];
};

// A fixed-size, possibly unterminated text field of an exchanged record.
std::string textOf(const char* text, size_t capacity) {
  return std::string(text, strnlen(text, capacity));
}

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
      throwError(static_cast<trncclResult_t>(all[r].code),
                 "shared-memory transport setup failed on rank " + std::to_string(r) + ": " +
                     textOf(all[r].message, sizeof all[r].message));
  }
}

void validate(const Options& options) {
  if (options.oob == nullptr) throwInvalidArgument("options.oob", "is NULL");
  if (options.nranks != options.oob->size() || options.rank != options.oob->rank())
    throwInvalidArgument("options", "rank " + std::to_string(options.rank) + " of " +
                                        std::to_string(options.nranks) +
                                        " disagrees with the out-of-band channel's rank " +
                                        std::to_string(options.oob->rank()) + " of " +
                                        std::to_string(options.oob->size()));
  std::vector<int> peers = options.peers;
  std::sort(peers.begin(), peers.end());
  for (size_t i = 0; i < peers.size(); ++i) {
    if (peers[i] < 0 || peers[i] >= options.nranks || peers[i] == options.rank ||
        (i > 0 && peers[i] == peers[i - 1]))
      throwInvalidArgument("options.peers", "holds " + std::to_string(peers[i]) +
                                                " (not another rank, or listed twice)");
  }
}

SegmentHeader* headerOf(const Segment& segment) {
  return reinterpret_cast<SegmentHeader*>(segment.data());
}
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
  for (size_t i = 0; i < peers.size(); ++i)
    fifoTableOf(own)[peers[i]] = static_cast<int32_t>(i + 1);
  std::atomic_ref<uint64_t>(header->magic).store(kSegmentMagic, std::memory_order_release);
}

PeerLink link(const Options& options, const std::vector<Announcement>& all,
              const Connections& connections, const SegmentLayout& ownLayout, int peer,
              uint32_t ownFifoIndex) {
  const Announcement& theirs = all[static_cast<size_t>(peer)];
  const Announcement& mine = all[static_cast<size_t>(options.rank)];
  const std::string name = textOf(theirs.name, sizeof theirs.name);
  SegmentLayout layout{options.nranks, theirs.fifoCount, ownLayout.fifo};
  PeerLink link;
  link.rank = peer;
  link.segment = Segment::open(name, layout.bytes().value_or(0));
  const SegmentHeader* header = headerOf(link.segment);
  if (std::atomic_ref<uint64_t>(headerOf(link.segment)->magic).load(std::memory_order_acquire) !=
          kSegmentMagic ||
      header->version != kSegmentVersion || header->rank != peer ||
      header->nranks != options.nranks)
    throwError(trncclSystemError, "shared-memory segment " + name + " of rank " +
                                      std::to_string(peer) +
                                      " is not a segment of this communicator");
  const int32_t entry = fifoTableOf(link.segment)[options.rank];
  if (entry <= 0 || static_cast<uint32_t>(entry) > theirs.fifoCount)
    throwError(trncclInvalidUsage,
               "rank " + std::to_string(options.rank) + " lists rank " + std::to_string(peer) +
                   " as a shared-memory peer, but rank " + std::to_string(peer) +
                   " does not list rank " + std::to_string(options.rank));
  link.toPeer = FifoWriter(
      link.segment.data() + layout.fifoOffset(static_cast<uint32_t>(entry - 1)), layout.fifo, peer);
  link.fromPeer =
      FifoReader(connections.own.data() + ownLayout.fifoOffset(ownFifoIndex), ownLayout.fifo, peer);
  link.announcementsToPeer = OutgoingAnnouncements(
      announcementTableOf(connections.own, ownLayout.announcementTableOffset(ownFifoIndex)));
  link.announcementsFromPeer = IncomingAnnouncements(announcementTableOf(
      link.segment, layout.announcementTableOffset(static_cast<uint32_t>(entry - 1))));
  link.doorbell = Doorbell(doorbellOf(link.segment));
  link.closed = &headerOf(link.segment)->closed;
  link.process =
      PeerProcess(static_cast<pid_t>(theirs.pid), theirs.pidNamespace == mine.pidNamespace);
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
  std::strncpy(mine.name, segmentName(options.jobKey, options.rank).c_str(), sizeof mine.name - 1);
  mine.pid = static_cast<uint64_t>(getpid());
  mine.pidNamespace = pidNamespaceId();
  mine.fifoBytes = config.fifoBytes;
  mine.fifoCount = layout.fifoCount;
  oob.allGather(all.data(), sizeof(Announcement));

  auto unlinkAll = [&all] {
    const std::string ours = std::string("/") + kSegmentPrefix;
    for (const Announcement& a : all) {
      const std::string name = textOf(a.name, sizeof a.name);
      if (name.starts_with(ours)) Segment::unlink(name);  // never anyone else's file
    }
  };
  try {
    for (size_t r = 0; r < all.size(); ++r) {
      if (all[r].fifoBytes != config.fifoBytes)
        throwError(trncclInvalidUsage,
                   "ranks disagree on the shared-memory FIFO size (TRNCCL_SHM_FIFO_BYTES): rank " +
                       std::to_string(options.rank) + " uses " + std::to_string(config.fifoBytes) +
                       " bytes, rank " + std::to_string(r) + " " +
                       std::to_string(all[r].fifoBytes));
    }
    Connections connections;
    connections.fifo = geometry;
    collectively(oob, [&] {
      const std::string purpose =
          "the shared-memory transport's FIFOs (" + std::to_string(peers.size()) + " peers x " +
          std::to_string(geometry.bytes()) +
          " bytes, TRNCCL_SHM_FIFO_BYTES=" + std::to_string(config.fifoBytes) + ")";
      connections.own = Segment::create(textOf(mine.name, sizeof mine.name),
                                        layout.bytes().value_or(UINT64_MAX), purpose);
      initialize(connections.own, options, peers);
    });
    connections.doorbell = Doorbell(doorbellOf(connections.own));
    connections.closed = &headerOf(connections.own)->closed;
    collectively(oob, [&] {
      for (size_t i = 0; i < peers.size(); ++i)
        connections.peers.push_back(
            link(options, all, connections, layout, peers[i], static_cast<uint32_t>(i)));
    });
    unlinkAll();
    return connections;
  } catch (...) {
    unlinkAll();
    throw;
  }
}

}  // namespace trnccl::transport::shm
