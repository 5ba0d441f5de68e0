// The TCP transport's frames: every byte a rank sends on a connection after
// its hello is a frame, a fixed header followed by `length` payload bytes.
// All ranks run the same build on the same kind of host (as the bootstrap
// assumes), so headers travel in host byte order.
//
// A message from A to B is numbered by A (its `seq`, increasing per peer) and
// travels as:
//   eager (up to kEagerBytes): one Eager frame carrying the whole message;
//   rendezvous (larger): A sends Rts; once B has a receive for it B answers
//     Cts, and A streams the message as Data frames of at most kChunkBytes,
//     spread over all the pair's connections and interleaved with other
//     messages; or B answers Nack (its receive is too small: InvalidUsage).
//   Cancel(seq, framed): A cancelled the send after `framed` payload bytes had
//     gone into Data frames (0: none); B drops the message once they arrived.
// Eager, Rts, Cts, Nack and Cancel frames travel in order on one connection,
// so a Cancel never overtakes the frame that opened its message.
//
// Rail failover (a pair with more than one connection): every frame but an
// Ack carries a `number`, increasing per direction of the pair in the order
// frames begin to be written. The receiver acknowledges what it read whole on
// each connection with Ack(count) on that connection: the number of numbered
// frames, duplicates included, read whole from it so far (at once after a
// Data frame, else every kAckEvery frames). The sender keeps
// each frame until it is acknowledged; the frames of a connection that stalls
// are written again, with their numbers, on another one, and the receiver
// acts on the first whole copy of each number and drops the rest. A pair
// with one connection numbers nothing (number 0) and sends no Ack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace trnccl::transport::tcp {

inline constexpr uint32_t kFrameMagic = 0x464e5254;  // "TRNF"
// Largest message sent without waiting for its receive: what an unexpected
// message may cost the receiver in heap.
inline constexpr uint64_t kEagerBytes = 64 * 1024;
// Largest Data frame: a small message on the same connection waits behind at
// most this much of a large one.
inline constexpr uint64_t kChunkBytes = 512 * 1024;
// Failover: a connection's numbered frames read whole are acknowledged at
// once after a Data frame, else after this many (one Ack write per this many
// small messages).
inline constexpr uint64_t kAckEvery = 32;
// Failover: payload copies a pair keeps for reuse.
inline constexpr size_t kSpareCopies = 2 * kAckEvery;
// Keeps offset + length arithmetic far from overflow.
inline constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 48;

enum class FrameKind : uint8_t { Eager = 1, Rts = 2, Cts = 3, Nack = 4, Cancel = 5, Data = 6, Ack = 7 };
const char* frameKindName(FrameKind kind);

struct FrameHeader {
  uint32_t magic;
  FrameKind kind;
  uint8_t reserved[3];
  uint64_t job;     // the communicator (jobIdOf(Options::jobKey))
  uint64_t seq;     // the sender's number of the message the frame belongs to; Ack: the count acknowledged
  uint64_t tag;     // Eager, Rts, Data
  uint64_t total;   // Eager, Rts, Data: message bytes; Nack: receive capacity; Cancel: framed
  uint64_t offset;  // Data: where its payload goes in the message
  uint64_t length;  // payload bytes after the header (Eager, Data)
  uint64_t number;  // failover: the frame's number (0: not numbered; Ack: always 0)
};
static_assert(sizeof(FrameHeader) == 64);

// A header with magic and job filled in; kind-specific fields zero.
FrameHeader makeFrame(FrameKind kind, uint64_t job, uint64_t seq);

// What a parser makes of the bytes at the start of a frame.
struct FrameVerdict {
  enum class Status { NeedMore, Valid, Malformed };
  Status status = Status::NeedMore;
  FrameHeader header{};  // Valid
  std::string problem;   // Malformed: what is wrong, e.g. "bad magic 0x..."
};

// Judges `bytes` (what has arrived of a frame so far) against the rules every
// frame of communicator `job` must follow, as early as possible: a wrong magic
// is Malformed after its first 4 bytes. Pure: no state, no allocation unless
// Malformed, never reads beyond `bytes`.
FrameVerdict parseFrame(std::span<const std::byte> bytes, uint64_t job);

// The communicator id frames and hellos carry (64-bit FNV-1a of the job key).
uint64_t jobIdOf(std::string_view jobKey);

}  // namespace trnccl::transport::tcp
