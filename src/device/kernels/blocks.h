// The loop every kernel shares: whole blocks of kBlock elements straight from
// the buffers, then the last partial block through zero-padded staging
// buffers, so kernels only ever see whole blocks (and tails get the same
// arithmetic, hence the same bits, as bodies).
#pragma once

#include <cstddef>
#include <cstring>

namespace trnccl::device::kernels {
namespace {

// block(sourceAt, out, first): reduce elements first .. first + kBlock - 1;
// sourceAt(k) is where source k's block starts. A block must be done reading
// one source before it asks for the next (the tail reuses one staging buffer).
// nsrcs is how many sources the block reads (for prefetching).
template <size_t kBlock, size_t kSrcSize, size_t kDstSize, class Block>
void forEachBlock(std::byte* dst, const void* const* srcs, int nsrcs, size_t count, Block block) {
  // Beyond two sources the hardware prefetcher keeps too few misses in
  // flight; asking for each source's lines 256 bytes ahead adds them (8-source
  // 16-bit sums at 64 MiB: 0.6 -> 0.8 of STREAM add; 2 sources would lose).
  constexpr size_t kPrefetchElements = 256 / kSrcSize;
  const auto source = [srcs](int k, size_t i) { return static_cast<const std::byte*>(srcs[k]) + i * kSrcSize; };
  size_t i = 0;
  for (; i + kBlock <= count; i += kBlock) {
    if (nsrcs > 2 && i + kPrefetchElements + kBlock <= count)
      for (int k = 0; k < nsrcs; ++k)
        for (size_t line = 0; line < kBlock * kSrcSize; line += 64)
          __builtin_prefetch(source(k, i + kPrefetchElements) + line);
    block([&](int k) { return source(k, i); }, dst + i * kDstSize, i);
  }
  if (i == count) return;
  const size_t n = count - i;
  alignas(64) std::byte in[kBlock * kSrcSize] = {};
  alignas(64) std::byte out[kBlock * kDstSize];
  const auto stage = [&](int k) {
    std::memcpy(in, source(k, i), n * kSrcSize);
    return static_cast<const std::byte*>(in);
  };
  block(stage, out, i);
  std::memcpy(dst + i * kDstSize, out, n * kDstSize);
}

}  // namespace
}  // namespace trnccl::device::kernels
