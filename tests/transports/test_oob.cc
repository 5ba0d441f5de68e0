#include "tests/transports/test_oob.h"

#include <unistd.h>

#include <cstring>
#include <string>

#include "base/error.h"

namespace trnccl::test {

void TestOutOfBand::allGather(void* data, size_t bytes) {
  if (bytes * static_cast<size_t>(size_) > sizeof area_.data)
    throwError(trncclInternalError,
               "test out-of-band allGather of " + std::to_string(bytes) + " bytes per rank does not fit");
  std::memcpy(area_.data + static_cast<size_t>(rank_) * bytes,
              static_cast<std::byte*>(data) + static_cast<size_t>(rank_) * bytes, bytes);
  barrier();
  std::memcpy(data, area_.data, bytes * static_cast<size_t>(size_));
  barrier();  // nobody overwrites the area before everyone has read it
}

void TestOutOfBand::barrier() {
  const uint32_t generation = area_.generation.load(std::memory_order_acquire);
  if (area_.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<uint32_t>(size_)) {
    area_.arrived.store(0, std::memory_order_relaxed);
    area_.generation.fetch_add(1, std::memory_order_release);
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (area_.generation.load(std::memory_order_acquire) == generation) {
    if (int gone = area_.abandonedRank.load(); gone >= 0)
      throwError(trncclRemoteError, "test out-of-band: rank " + std::to_string(gone) + " died");
    if (std::chrono::steady_clock::now() > deadline)
      throwError(trncclTimeout, "test out-of-band: barrier timed out on rank " + std::to_string(rank_));
    usleep(50);
  }
}

}  // namespace trnccl::test
