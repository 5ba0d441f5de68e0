#include "transports/shm/block_board.h"

#include <atomic>
#include <string>

#include "base/error.h"

namespace trnccl::transport::shm {
namespace {

// The buffer of `call` (odd and even calls alternate), for the writer and readers.
template <class Byte>
Byte* bufferOf(Byte* board, uint64_t call) {
  return board + (call & 1) * kBoardBufferBytes;
}
uint64_t load(const std::byte* buffer, size_t offset, std::memory_order order) {
  return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(const_cast<std::byte*>(buffer) + offset)).load(order);
}

}  // namespace

std::byte* BoardWriter::block(uint64_t call, uint64_t bytes) const {
  return bufferOf(board_, call) + boardDataOffset(bytes);
}

void BoardWriter::publish(uint64_t call, uint64_t bytes) {
  std::byte* buffer = bufferOf(board_, call);
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(buffer + 8)).store(bytes, std::memory_order_relaxed);
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(buffer)).store(call, std::memory_order_release);
}

bool BoardReader::published(uint64_t call) const {
  return load(bufferOf(board_, call), 0, std::memory_order_acquire) == call;
}

const std::byte* BoardReader::block(uint64_t call, uint64_t bytes) const {
  const std::byte* buffer = bufferOf(board_, call);
  const uint64_t stamp = load(buffer, 0, std::memory_order_acquire);
  if (stamp != call) {
    const uint64_t previous = call > 2 ? call - 2 : 0;
    if (stamp != previous)
      throwError(trncclRemoteError, "rank " + std::to_string(owner_) +
                                        " corrupted its shared-memory block board: call " + std::to_string(stamp) +
                                        " where " + std::to_string(previous) + " or " + std::to_string(call) +
                                        " belongs");
    return nullptr;
  }
  const uint64_t published = load(buffer, 8, std::memory_order_relaxed);
  if (published != bytes)
    throwError(trncclInvalidUsage, "rank " + std::to_string(owner_) + " contributed " + std::to_string(published) +
                                       " bytes to a one-shot collective where " + std::to_string(bytes) +
                                       " were expected (do all ranks pass the same count?)");
  return buffer + boardDataOffset(bytes);
}

}  // namespace trnccl::transport::shm
