// A test-only out-of-band channel for transport tests: ranks that are threads
// of this process or processes forked from it exchange setup data through one
// shared anonymous mapping (created before the fork). Every wait is bounded,
// and a rank marked as abandoned (it died) makes the others' collectives throw,
// as a real bootstrap does when a peer's socket closes.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "transports/transport.h"

namespace trnccl::test {

inline constexpr int kMaxRanks = 16;

// Lives in memory shared by every rank of one launch.
struct OobArea {
  std::atomic<uint32_t> arrived{0};
  std::atomic<uint32_t> generation{0};
  std::atomic<int32_t> abandonedRank{-1};
  alignas(64) std::byte data[64 * 1024];
};

class TestOutOfBand : public transport::OutOfBand {
 public:
  TestOutOfBand(OobArea& area, int rank, int size, std::chrono::milliseconds timeout = std::chrono::seconds(90))
      : area_(area), rank_(rank), size_(size), timeout_(timeout) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void allGather(void* data, size_t bytes) override;
  void barrier() override;

 private:
  OobArea& area_;
  int rank_;
  int size_;
  std::chrono::milliseconds timeout_;
};

}  // namespace trnccl::test
