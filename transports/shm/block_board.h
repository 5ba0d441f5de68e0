// A rank's block board in its own segment (layout.h), behind the transport's
// BlockBoard (transport.h): two buffers, used by odd and even calls in turn,
// each a header line (the call that last published it, then its byte count)
// and up to kBoardBlockBytes of data. A block of up to 48 bytes travels in
// its header's line; a larger one starts on the next line, so the kernels'
// vector loads do not straddle lines. Only the owner writes them; every peer
// reads them in place.
//
// Ordering: the owner writes the data and the count, then stores the call
// (release); a reader loads the call (acquire) before anything else. A buffer
// holds call k or call k - 2 (its previous use; 0 before the first), nothing
// else: a reader that finds anything else names its owner as corrupt.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trnccl::transport::shm {

inline constexpr uint64_t kBoardBlockBytes = 2 * 1024;
inline constexpr uint64_t kBoardHeaderBytes = 16;
inline constexpr uint64_t kBoardBufferBytes = 64 + kBoardBlockBytes;
// Where a block of `bytes` starts in its buffer.
inline constexpr uint64_t boardDataOffset(uint64_t bytes) {
  return bytes <= 64 - kBoardHeaderBytes ? kBoardHeaderBytes : 64;
}
inline constexpr uint64_t kBoardBytes = 2 * kBoardBufferBytes;

// The owner's end.
class BoardWriter {
 public:
  BoardWriter() = default;
  explicit BoardWriter(std::byte* board) : board_(board) {}
  // Where `call`'s block of `bytes` goes (call >= 1).
  std::byte* block(uint64_t call, uint64_t bytes) const;
  void publish(uint64_t call, uint64_t bytes);

 private:
  std::byte* board_ = nullptr;
};

// A peer's end. `owner` is the owner's rank, for error messages.
class BoardReader {
 public:
  BoardReader() = default;
  BoardReader(const std::byte* board, int owner) : board_(board), owner_(owner) {}
  // `call`'s block once published, else null. Throws Error: trncclRemoteError
  // for a corrupt buffer, trncclInvalidUsage for a block that is not `bytes`
  // long (the ranks disagree on the call's count).
  const std::byte* block(uint64_t call, uint64_t bytes) const;
  // Whether `call`'s block is published, unvalidated (a last look before
  // sleeping; never throws).
  bool published(uint64_t call) const;

 private:
  const std::byte* board_ = nullptr;
  int owner_ = -1;
};

}  // namespace trnccl::transport::shm
