// A schedule: what one rank does for one collective, as plain data. It is the
// contract between the algorithms that write schedules and everything that
// executes them (the runtime's executor, the simulator).
//
// A schedule is a sequence of phases; a phase is a set of channels that run
// concurrently; a channel is an ordered list of steps. A step is one of NCCL's
// primitives, spelled as flags:
//
//   value = recv ? (reduce ? op(srcs..., received) : received)
//                : (reduce ? op(srcs...) : srcs[0])
//   dst  <- value          (if dst is set)
//   send value to sendPeer (if sendPeer >= 0)
//
// so "send", "recv", "recvReduceSend", "recvReduceCopySend", "recvCopySend",
// "copy" and a local K-way "reduce" are all steps. A message is matched by
// (sender, receiver, tag): the algorithm gives a send and its receive the same
// tag, unique between that pair within the collective, and below kTagSpace
// (the executor keeps 24 bits of it in the message tag).
//
// Execution contract: a channel's steps start in order, and the executor may
// overlap a step with the next one (two in flight per channel), so a step must
// not read or write what the step before it writes; a message a rank sends in
// step k must be received by its peer in a step the peer can reach while the
// sender is still in step k (the same or the next step). The executor streams
// each step through bounded buffers in slices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/collective_table.h"
#include "trnccl/trnccl.h"

namespace trnccl::algo {

using trnccl::Collective;                  // base/collective_table.h
const char* collectiveName(Collective c);  // "allreduce", ...

// The buffers a step can name. P2P schedules name one buffer per operation,
// from kFirstUserBuffer on.
enum Buffer : uint16_t { kNone = 0, kSend = 1, kRecv = 2, kScratch = 3, kFirstUserBuffer = 4 };

struct Span {
  uint16_t buffer = kNone;
  size_t offset = 0;  // in elements of the schedule's type
  bool operator==(const Span&) const = default;
};

inline constexpr uint32_t kTagSpace = uint32_t(1) << 24;

struct Step {
  int recvPeer = -1;
  int sendPeer = -1;
  bool reduce = false;     // combine what is received (or the srcs) with op
  bool final = false;      // the last reduction of these elements: avg divides here
  std::vector<Span> srcs;  // local inputs, in reduction order
  Span dst;
  size_t count = 0;      // elements
  uint32_t recvTag = 0;  // a message's tag: the sender's sendTag is the receiver's recvTag
  uint32_t sendTag = 0;

  bool operator==(const Step&) const = default;
  // Back to a default step, keeping the sources' capacity: a step reused
  // for step after step allocates nothing.
  void clear() {
    std::vector<Span> keep = std::move(srcs);
    keep.clear();
    *this = Step{};
    srcs = std::move(keep);
  }
};

struct Channel {
  std::vector<Step> steps;
};

struct Phase {
  std::vector<Channel> channels;
};

struct Schedule {
  Collective collective = Collective::AllReduce;
  const char* algorithm = "";
  int rank = 0;
  int nranks = 1;
  size_t count = 0;  // the collective's count argument
  trncclDataType_t type = trncclFloat32;
  trncclRedOp_t op = trncclSum;
  int root = 0;
  size_t scratchElements = 0;  // size of buffer kScratch
  std::vector<Phase> phases;

  size_t stepCount() const;
  std::string describe() const;  // human-readable, for TRNCCL_DEBUG=TRACE
};

}  // namespace trnccl::algo
