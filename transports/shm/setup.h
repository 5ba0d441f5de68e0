// Setting up the shared-memory transport: a collective over the out-of-band
// channel. Every rank announces a segment name, creates and maps its own
// segment (placed near its cores), maps its peers' segments (and rank 0's
// link board, when links are emulated), and once every rank has mapped what it
// needs every rank unlinks every name, so nothing is left in /dev/shm however
// the job ends afterwards. A failure on any rank fails setup on every rank
// (with the failing rank's message), after each rank has unlinked every name
// it knows: a rank that dies mid-setup cannot leave its segment behind.
#pragma once

#include <cstdint>
#include <vector>

#include "base/peer_process.h"
#include "transports/shm/announcement.h"
#include "transports/shm/block_board.h"
#include "transports/shm/config.h"
#include "transports/shm/doorbell.h"
#include "transports/shm/fifo.h"
#include "transports/shm/segment.h"
#include "transports/transport.h"

namespace trnccl::transport::shm {

struct PeerLink {
  int rank = -1;
  PeerProcess process;
  Segment segment;                              // the peer's: holds the FIFO we write and its doorbell
  FifoWriter toPeer;                            // our FIFO in the peer's segment
  FifoReader fromPeer;                          // the peer's FIFO in our segment
  OutgoingAnnouncements announcementsToPeer;    // ours, in our segment
  IncomingAnnouncements announcementsFromPeer;  // the peer's, in its segment
  Doorbell doorbell{nullptr};                   // the peer's
  BoardReader board;                            // the peer's block board
  uint32_t* closed = nullptr;                   // the peer's "transport gone" flag
  // The slots of our FIFO in the peer's segment: committed by us before our
  // first write to them (segment.h), unless the whole segment was reserved.
  ByteRange toPeerSlots;
  bool toPeerCommitted = false;
};

struct Connections {
  Segment own;
  uint64_t ownReservedBytes = 0;  // of `own`, reserved at creation
  Segment linkBoard;              // the job's, when link emulation is on (link_pacing.h)
  Doorbell doorbell{nullptr};     // ours
  uint32_t* closed = nullptr;     // ours
  BoardWriter board;              // ours
  FifoGeometry fifo;
  std::vector<PeerLink> peers;  // in rank order
};

// Collective: every rank of options.oob calls it. Throws trnccl::Error.
Connections connect(const Options& options, const Config& config);

}  // namespace trnccl::transport::shm
