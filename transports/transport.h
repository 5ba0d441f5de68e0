// The one narrow interface between the runtime and every transport (shm, ofi,
// tcp): tagged, non-blocking point-to-point messages between the ranks of one
// communicator. A transport never knows which collective it serves; the
// runtime never knows how bytes move.
//
// Matching: a message sent by rank A to rank B with tag T completes the receive
// that B posts for (peer A, tag T), whatever the order in which either side
// posts, and whatever order the wire delivers in. Tags are unique among the
// messages in flight between a pair of ranks.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace trnccl::transport {

using Tag = uint64_t;

// One send or receive. Owned by the caller, which must keep it alive (and not
// touch its buffer) until `done`, or until cancelAll() returns.
struct Request {
  // Set by the caller before posting.
  int peer = -1;
  Tag tag = 0;
  void* buffer = nullptr;  // const for sends
  size_t bytes = 0;        // send: message size; receive: capacity
  // Send: the rest of a message an earlier send to the same peer began (a
  // slice of it), which link emulation does not issue again.
  bool continues = false;
  // Send: the buffer is the caller's input (its send buffer, out of place),
  // which nothing writes while the call runs, so a transport may let the
  // peer read it in place. Intermediate results are not: a peer reading
  // them in place measured slower than having them streamed.
  bool userInput = false;
  // Set by the transport.
  bool done = false;
  size_t transferred = 0;     // receive: the size of the message that arrived
  uint64_t internal[4] = {};  // the transport's bookkeeping
};

// What a transport needs from the communicator to set itself up: the
// bootstrap's out-of-band channel between all ranks.
class OutOfBand {
 public:
  virtual ~OutOfBand() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank contributes `bytes` at data + rank * bytes; on return data
  // holds all size() contributions.
  virtual void allGather(void* data, size_t bytes) = 0;
  virtual void barrier() = 0;
};

// Timed emulation of modelled links: a message to `peer` occupies every link of
// pathTo[peer] for bytes / (the slowest of them) and arrives latency later, all
// times multiplied by `scale`. Links are shared by every rank of the job (several
// ranks' messages over one link queue behind each other). Disabled when
// linkBytesPerSec is empty. An empty path (two ranks of one chip) occupies no
// link: such a message pays its latency only.
struct LinkEmulation {
  double scale = 1;
  std::vector<double> linkBytesPerSec;   // per link id of the whole job
  std::vector<std::vector<int>> pathTo;  // per peer rank: link ids, in order
  std::vector<double> latencyTo;         // per peer rank: seconds (unscaled)
  // Per peer rank: what issuing a message holds its path's first link (the
  // sender's DMA engines) for, unscaled seconds; empty: 0.
  std::vector<double> issueTo;
};

// What a transport holds (trncclCommMemStats).
struct MemoryUse {
  uint64_t sharedBytes = 0;      // /dev/shm this rank has committed
  uint64_t hostBytes = 0;        // the transport's own heap buffers
  uint64_t registeredBytes = 0;  // memory registered with a NIC (FI_MR_LOCAL)
  int peersWithBuffers = 0;      // peers whose per-peer buffers exist
  uint64_t mappedPeerBytes = 0;  // peers' registered memory mapped to read in place
};

// One rail (a socket set of the tcp transport, an ofi rail, shared memory):
// whether it is up and what it moved, for trnccl-top and trnccl-ls.
struct RailStatus {
  std::string name;  // the interface or provider domain it runs over
  bool up = true;
  uint64_t bytesSent = 0, bytesReceived = 0;
  uint32_t failovers = 0;  // times its traffic moved to the other rails
};

// Memory whose pages a peer process on this host can map: a file (memfd)
// mapped at `base` from its offset 0. trncclCommRegister of trncclMemAlloc
// memory hands it to the transports.
struct SharedRegion {
  const void* base = nullptr;
  size_t bytes = 0;
  int fd = -1;
};

struct Options {
  int rank = 0;
  int nranks = 0;
  std::vector<int> peers;    // the ranks this transport connects to (never rank itself)
  OutOfBand* oob = nullptr;  // collective: every rank of the communicator calls the factory
  std::chrono::milliseconds timeout{300000};
  std::string jobKey;       // unique per communicator: names shared resources
  LinkEmulation emulation;  // every rank enables it, or none
  // This rank's host runs more of the communicator's ranks than it has
  // cores: CPU time, not memory bandwidth, is what copies run short of.
  bool oversubscribed = false;
};

// A block board: shared memory in which every rank of the communicator publishes
// one small block per call and reads every other rank's block in place,
// offered by a transport that reaches all ranks through memory (shm). A
// latency-bound collective then costs one cache-line transfer each way
// instead of a message per peer. Calls are numbered 1, 2, ... alike on every
// rank; blocks alternate between two buffers, so a rank may publish call k
// once it has read every block of call k - 1: each peer then has read call
// k - 2's blocks, whose buffer call k reuses.
class BlockBoard {
 public:
  virtual ~BlockBoard() = default;
  virtual size_t blockBytes() const = 0;  // the largest block
  // Where this rank writes its block of `call`, `bytes` long, before publish().
  virtual void* ownBlock(uint64_t call, size_t bytes) = 0;
  // Makes the block visible, `bytes` long.
  virtual void publish(uint64_t call, size_t bytes) = 0;
  // Wakes the peers that sleep waiting for a block: call it after publish()
  // and before waiting for theirs. Separate, so that a caller can do other
  // work while its block travels: the fence that orders the block before
  // the sleepers' flags waits for that transfer.
  virtual void wakePeers() = 0;
  // `rank`'s block of `call` once published, else null. Throws trnccl::Error:
  // trncclInvalidUsage when it is not `bytes` long (the ranks disagree on
  // the call), trncclRemoteError when the peer corrupted its board.
  virtual const void* peerBlock(int rank, uint64_t call, size_t bytes) = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual const char* name() const = 0;
  // The name and the settings a user would want to see, e.g.
  // "ofi (tcp;ofi_rxm, 2 rails)"; reports and logs print it.
  virtual std::string description() const { return name(); }

  // Post a send / receive. They return at once; the transfer happens in progress().
  virtual void isend(Request& request) = 0;
  virtual void irecv(Request& request) = 0;
  // Whether a message from `peer` with `tag` has arrived, or begun to, with
  // no receive posted for it yet (MPI_Iprobe for one source and tag): what
  // the last progress() took in. False for a rank that is not a peer.
  virtual bool arrived(int peer, Tag tag) const = 0;
  // Registration (trncclCommRegister): sends from inside `region` may be
  // read in place by peers that can map it. Counted: each register needs its
  // deregister. A transport that cannot use it ignores it. Never called while
  // progress() runs.
  virtual void registerRegion(const SharedRegion& region) { (void)region; }
  virtual void deregisterRegion(const void* base) { (void)base; }

  // Advance everything posted; completed requests get done = true. Throws
  // trnccl::Error on failure, naming the peer (a peer that died: trncclRemoteError;
  // a message larger than the posted receive: trncclInvalidUsage).
  virtual void progress() = 0;

  // Block until there may be something to progress, or `maxWait` passes, or
  // interrupt() is called (the blocking stage of the runtime's backoff).
  virtual void wait(std::chrono::microseconds maxWait) = 0;
  // Wake a thread blocked in wait(); callable from any thread (abort).
  virtual void interrupt() = 0;

  // Forget every posted request (abort / error path): afterwards the transport
  // no longer touches their buffers.
  virtual void cancelAll() = 0;

  // The peers this transport knows to be gone, looked at now without waiting
  // ("rank 0 (pid 4711) exited"): their process ended, or they closed or
  // lost every connection. When a call fails, the runtime names them, so a
  // rank that failed because its neighbour gave up also learns of the death
  // that started it.
  virtual std::vector<std::string> departures() { return {}; }

  virtual MemoryUse memoryUse() const = 0;

  // Per rail: its state and the bytes it moved; empty where the transport
  // keeps no such figures.
  virtual std::vector<RailStatus> railStatus() const { return {}; }

  // The transport's block board when it reaches every other rank of the
  // communicator through memory; null otherwise. wait() also wakes when the
  // block that peerBlock() last found missing is published.
  virtual BlockBoard* blockBoard() { return nullptr; }
};

}  // namespace trnccl::transport
