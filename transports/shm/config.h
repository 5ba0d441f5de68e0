// Settings of the shared-memory transport: the environment knobs and the
// protocol constants every rank must agree on.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace trnccl::transport::shm {

// How a message's bytes travel (TRNCCL_SHM_COPY).
enum class CopyPath {
  // Up to kEagerBytes through the FIFO; larger messages by the path measured
  // faster on the development host (a 2-vCPU VM; tests/transports/
  // bench_shm_copy.cc): a single memcpy between threads of one process (it
  // beat two copies by 1.5-3x); between processes with a core each, two
  // copies through the FIFO, because process_vm_readv peaked near 4 GB/s
  // there while the FIFO's cache-resident slots carried 4-12 GB/s; between
  // processes that outnumber the host's cores, process_vm_readv, whose one
  // copy costs the scarce CPU time once (8 ranks on 2 cores: 512 KiB
  // all-reduce 15-20% faster, README).
  Auto,
  // Every non-empty message by single copy (memcpy, or process_vm_readv),
  // falling back to the FIFO where the kernel refuses cross-memory attach or
  // the peer's pid is not ours to name (another pid namespace).
  Cma,
  // Every message through the FIFO: two copies.
  Fifo,
};
const char* copyPathName(CopyPath path);
// Whether announced messages from another process are read out of its
// memory in one copy (process_vm_readv, where the kernel allows it) rather
// than streamed through the FIFO; `oversubscribed`: Options::oversubscribed.
bool pullsFromOtherProcesses(CopyPath path, bool oversubscribed);

struct Config {
  CopyPath copy = CopyPath::Auto;
  uint64_t fifoBytes = 0;  // payload bytes of each sender's FIFO in a receiver's segment
  bool board = true;       // offer the block board (transport.h: BlockBoard)
};

// Reads TRNCCL_SHM_COPY=auto|cma|fifo, TRNCCL_SHM_FIFO_BYTES (rounded up to
// whole slots, at least two) and TRNCCL_SHM_BOARD (0: small all-reduces go
// through the FIFOs too); throws Error(InvalidArgument) naming a bad one.
Config readConfig();

// Payload bytes of one FIFO slot. A protocol constant: ranks never disagree.
inline constexpr uint64_t kSlotBytes = 64 * 1024;
// Default FIFO per sender: 8 slots, so a receiver's segment holds 512 KiB per peer.
inline constexpr uint64_t kDefaultFifoBytes = 8 * kSlotBytes;
// Largest message sent eagerly (copied into the FIFO without waiting for its
// receive). Larger messages announce themselves and wait for the receive, so an
// unexpected message never costs more than this much heap on the receiver.
inline constexpr uint64_t kEagerBytes = 64 * 1024;
// An eager message travels in one slot, so a receiver takes it whole.
static_assert(kEagerBytes <= kSlotBytes);
// A single-copy pull moves at most this much per progress() call, so one large
// message does not stall everything else.
inline constexpr size_t kPullChunkBytes = 4 * 1024 * 1024;
// How often a rank waiting on a peer checks that the peer is still alive.
inline constexpr std::chrono::milliseconds kLivenessInterval{50};
// How long a closing transport waits for room in a live peer's FIFO for the
// replies it still owes (shm_send.cc: sendLastReplies).
inline constexpr std::chrono::milliseconds kLastRepliesWait{1000};

}  // namespace trnccl::transport::shm
