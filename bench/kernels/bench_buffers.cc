#include "bench_buffers.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <random>

namespace trnccl::bench {
namespace {

constexpr size_t kPatternBytes = size_t{1} << 20;
size_t alignment = 64;
std::optional<size_t> spacing;
std::optional<size_t> offset;
constexpr size_t kHugePage = size_t{2} << 20;

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
void BenchBuffers::setSpacing(size_t bytes) { spacing = bytes; }
void BenchBuffers::setOffset(size_t bytes) { offset = bytes; }

std::byte* BenchBuffers::place(int j) {
  if (offset) {
    const size_t bytes = kLargestBuffer + kMaxSources * *offset;
    storage_.emplace_back(
        static_cast<std::byte*>(std::aligned_alloc(kHugePage, (bytes + kHugePage - 1) / kHugePage * kHugePage)));
    return storage_.back().get() + j * *offset;
  }
  if (!spacing) {
    storage_.emplace_back(static_cast<std::byte*>(std::aligned_alloc(alignment, kLargestBuffer)));
    return storage_.back().get();
  }
  if (storage_.empty()) {
    const size_t bytes = (kMaxSources + 1) * (kLargestBuffer + *spacing);
    storage_.emplace_back(
        static_cast<std::byte*>(std::aligned_alloc(kHugePage, (bytes + kHugePage - 1) / kHugePage * kHugePage)));
  }
  return storage_.front().get() + j * (kLargestBuffer + *spacing);
}

BenchBuffers::BenchBuffers() {
  const std::vector<std::byte> pattern = makePattern();
  for (int k = 0; k < kMaxSources; ++k) {
    std::byte* source = place(k);
    sources_.push_back(source);
    // Each source tiles the pattern from its own offset, so no two are equal.
    for (size_t at = 0; at < kLargestBuffer; at += kPatternBytes)
      std::memcpy(source + at, pattern.data() + k * 64, kPatternBytes);
  }
  destination_ = place(kMaxSources);
  std::memset(destination_, 0, kLargestBuffer);
}

}  // namespace trnccl::bench
