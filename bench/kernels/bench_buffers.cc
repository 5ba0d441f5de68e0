#include "bench_buffers.h"

#include <cstdint>
#include <cstring>
#include <random>

namespace trnccl::bench {
namespace {

constexpr size_t kPatternBytes = size_t{1} << 20;
size_t alignment = 64;

std::vector<std::byte> makePattern() {
  std::mt19937_64 rng(1);
  std::vector<std::byte> pattern(kPatternBytes + kMaxSources * 64);
  for (std::byte& b : pattern) {
    const uint64_t bits = rng();
    b = std::byte{static_cast<uint8_t>(0x38 | (bits & 0x3) | ((bits >> 2) & 1) << 7)};
  }
  return pattern;
}

}  // namespace

BenchBuffers& BenchBuffers::instance() {
  static BenchBuffers buffers;
  return buffers;
}

void BenchBuffers::setAlignment(size_t bytes) { alignment = bytes; }

BenchBuffers::Allocation BenchBuffers::allocate() {
  return Allocation(static_cast<std::byte*>(std::aligned_alloc(alignment, kLargestBuffer)));
}

BenchBuffers::BenchBuffers() : destination_(allocate()) {
  const std::vector<std::byte> pattern = makePattern();
  for (int k = 0; k < kMaxSources; ++k) {
    storage_.push_back(allocate());
    sources_.push_back(storage_.back().get());
    // Each source tiles the pattern from its own offset, so no two are equal.
    for (size_t at = 0; at < kLargestBuffer; at += kPatternBytes)
      std::memcpy(storage_.back().get() + at, pattern.data() + k * 64, kPatternBytes);
  }
  std::memset(destination_.get(), 0, kLargestBuffer);
}

}  // namespace trnccl::bench
