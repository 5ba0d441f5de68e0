// What ranks say to each other over libfabric.
//
// Libfabric tags (64 bits, exact match, receives directed at one peer's
// address): a control message carries kControlTag; chunk `c` of the message
// that receive `r` (numbered by the receiving rank, never reused) waits for
// carries dataTag(r, c). User tags travel inside control messages, so all 64
// bits of them are free.
//
// Control messages (rail 0; over several rails, the first rail that still
// delivers them, below):
//   Eager{tag, bytes, send}  + the message itself (bytes <= eager limit)
//   Rts{tag, bytes, send}    a larger message is ready (ready-to-send)
//   Cts{send, receive, first, count, rail, bytes = number}
//                            the receiver has posted receives for chunks
//                            [first, first + count) on `rail` (clear-to-send);
//                            its `number`-th for the message: a chunk asked
//                            for again follows the later Cts
//   Nack{send, bytes = capacity}
//                            the receive posted for it is too small
//   Credit{}                 nothing but returned credits (below)
//   Bye{count}               this rank closed its transport, after sending
//                            `count` control messages to the peer (Bye excluded)
//   Done{send, bytes}        more than one rail: every chunk of it arrived
//   Ping{}, Pong{acked}      more than one rail: is the peer progressing, and
//                            what of ours has it? (the Pong on the Ping's rail).
//                            Rare, and sent without a credit: one may arrive
//                            before a receive is posted, which the provider
//                            holds (EFA and rxm do) until one is.
// Rail failover (more than one rail; ofi_transport_internal.h): the receiver
// chooses each chunk's rail and may ask for a chunk again on another rail,
// so a sender cannot know from its own completions that a chunk arrived (a
// provider may complete a send whose bytes a dead link then loses): its send
// completes on the receiver's Done instead. The receive completes once its
// Done has left (its send completed): a rank whose requests are all done may
// stop progressing, and the Done must not wait for it.
// Over several rails control messages may be lost with their rail: every
// one but Ping, Pong and Bye carries a sequence number (`seq`, from 1) and
// every one the count of the peer's it has had without a gap (`acked`). A
// sender keeps each until it is acknowledged, and sends them all again on
// the next rail when the peer's Pong, over another rail, shows that the
// rail they went on lost them; the receiver acts on the first copy of each
// number only. Each rail has its own control receives and credits: a
// message's credits count the receives posted again on `creditRail`.
// Flow control: a rank keeps `controlReceives` receives posted for each
// peer's control messages (its RankCard says how many) and a peer sends only
// against credits, one per message, so no control message ever arrives
// unexpected (some providers mishandle many of those; none need buffer them).
// Every control message returns, in `credits`, the receives its sender has
// posted again since its last report. Ordinary messages need two credits, a
// Credit or Bye one: the last credit is kept for returning credits, so two
// ranks out of credits towards each other can always tell each other. A
// Credit goes out when a rank owes half a peer's worth and has nothing else
// to send it.
// Checksums (TRNCCL_OFI_CHECKSUM, config.h): every control message carries
// the CRC-32 of itself (header, with `checksum` 0, and payload), and an Rts
// the CRC-32 of the whole message it announces; the receiver checks both, so
// bytes a provider corrupted or misplaced are an error naming the peer, never
// data handed to the user. Without checksums both fields are 0.
// A sender answers a Cts for a send it no longer has (cancelled) with an
// empty message on each chunk's tag: a receiver seeing one knows the message
// was withdrawn.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace trnccl::transport::ofi {

inline constexpr uint64_t kControlTag = uint64_t{1} << 63;
inline constexpr int kChunkBits = 24;
inline constexpr uint64_t kMaxChunks = uint64_t{1} << kChunkBits;
inline constexpr uint64_t kMaxReceiveId = uint64_t{1} << (63 - kChunkBits);

inline uint64_t dataTag(uint64_t receive, uint64_t chunk) { return (receive << kChunkBits) | chunk; }

enum class ControlKind : uint32_t { Eager = 1, Rts, Cts, Nack, Credit, Bye, Done, Ping, Pong };

struct ControlHeader {
  uint32_t magic;
  ControlKind kind;
  uint64_t tag;           // Eager, Rts: the user's tag
  uint64_t bytes;         // Eager, Rts: the message size; Nack: the receive's capacity; Bye: count; Cts: its number
  uint64_t send;          // the sender's number for the message
  uint64_t receive;       // Cts: the receiver's number for it
  uint32_t first, count;  // Cts: chunks
  uint32_t credits;       // every kind: control receives posted again for the peer
  uint32_t checksum;      // checksums on: CRC-32 of this control message
  uint32_t dataChecksum;  // Rts, checksums on: CRC-32 of the message announced
  uint32_t rail;          // Cts: the rail the chunks' receives are posted on
  uint64_t seq;           // more than one rail: the message's number (0: none)
  uint64_t acked;         // more than one rail: the peer's messages had without a gap
  uint32_t creditRail;    // the rail whose receives `credits` counts
  uint32_t reserved;
};
inline constexpr uint32_t kControlMagic = 0x4946'4f54;  // "TOFI"

// zlib's CRC-32 of `bytes` bytes.
uint32_t crc32Of(const void* data, size_t bytes);

// "CRC-32 <arrived>, the sender's <sent>", for the message naming a mismatch.
std::string checksumsDiffer(uint32_t arrived, uint32_t sent);

// Sets a control message's `checksum` (`length` bytes: header and payload).
void sealControl(std::byte* data, size_t length);

// Checks what arrived (`length` bytes) against the protocol, and against its
// checksum when `checksums`: Error(RemoteError) "sent <what was wrong>" for
// the caller to prefix with the peer's name.
const ControlHeader& parseControl(const std::byte* data, size_t length, size_t eagerLimit, bool checksums);

}  // namespace trnccl::transport::ofi
