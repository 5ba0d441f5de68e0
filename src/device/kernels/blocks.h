// The loop every kernel shares: whole blocks of kBlock elements straight from
// the buffers, then the last partial block through zero-padded staging
// buffers, so kernels only ever see whole blocks (and tails get the same
// arithmetic, hence the same bits, as bodies).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace trnccl::device::kernels {
namespace {

// block(sourceAt, out, first): reduce elements first .. first + kBlock - 1;
// sourceAt(k) is where source k's block starts. A block must be done reading
// one source before it asks for the next (the tail reuses one staging buffer).
// nsrcs is how many sources the block reads (for prefetching): an int, or a
// std::integral_constant where the kernel is compiled for that count.
//
// A call that touches more bytes than the caches hold (kStreamingBytes)
// writes its whole blocks with non-temporal stores, as glibc's memcpy does
// beyond its threshold: the destination's lines are not read from memory
// before being overwritten (a plain store's read-for-ownership costs a
// K-source reduction 1/(K+2) of its memory traffic), and are not kept in
// cache where nothing will read them soon. Blocks are computed into two
// L1-resident staging blocks in turn, and each is streamed out while the next
// is computed, which keeps every codec's stores as they are; the destination
// must be 16-byte aligned. (Streaming a block right after computing it
// would load lines that the codec's 16- or 32-byte stores have not yet
// written to L1: a load spanning several pending stores waits for them,
// which cost compute-bound kernels 10-20%.) 8-source sums gain as much
// (bf16 and fp16 at 64 MiB about 0.88 -> 1.02 of STREAM add) since each
// source has loads of its own (kernel_templates.h); before, with the
// stride prefetchers untrained, streaming had measured slower there.
inline constexpr size_t kStreamingBytes = size_t{32} << 20;

template <size_t kBytes>
void streamOut(std::byte* dst, const std::byte* staged) {
#ifdef __AVX512F__
  if (reinterpret_cast<uintptr_t>(dst) % 64 == 0) {
    for (size_t at = 0; at < kBytes; at += 64)
      _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + at), _mm512_load_si512(staged + at));
    return;
  }
#endif
  for (size_t at = 0; at < kBytes; at += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + at),
                     _mm_load_si128(reinterpret_cast<const __m128i*>(staged + at)));
}

// A tail's staging. Its first `bytes` bytes come from `src`, the rest are
// zero. With AVX-512 each 64-byte piece is one masked load and one store, so
// the block's own vector loads forward from those stores; the block would
// otherwise wait for memcpy's and memset's smaller stores to reach the cache
// (half of a tiny call's time), and a library call per piece adds to it.
// Masked-off bytes are never read, so the load cannot fault past the end.
#ifdef __AVX512BW__
inline __mmask64 firstBytes(size_t bytes) { return bytes >= 64 ? ~__mmask64{0} : (__mmask64{1} << bytes) - 1; }
#endif

// Staging sizes are whole 64-byte pieces (a narrow type's block on the
// 16-lane ISAs can be 16 or 32 bytes).
constexpr size_t wholePieces(size_t bytes) { return (bytes + 63) / 64 * 64; }

template <size_t kBytes>
void stageTail(std::byte* staged, const std::byte* src, size_t bytes) {
#ifdef __AVX512BW__
  for (size_t at = 0; at < kBytes; at += 64)
    _mm512_store_si512(staged + at, _mm512_maskz_loadu_epi8(firstBytes(bytes > at ? bytes - at : 0), src + at));
#else
  std::memcpy(staged, src, bytes);
  std::memset(staged + bytes, 0, wholePieces(kBytes) - bytes);
#endif
}

// The first `bytes` bytes of a computed tail block, out to `dst`.
inline void unstageTail(std::byte* dst, const std::byte* staged, size_t bytes) {
#ifdef __AVX512BW__
  for (size_t at = 0; at < bytes; at += 64)
    _mm512_mask_storeu_epi8(dst + at, firstBytes(bytes - at), _mm512_load_si512(staged + at));
#else
  std::memcpy(dst, staged, bytes);
#endif
}

// Whether a call streams its stores (see above), for kernels that may.
inline bool streams(const std::byte* dst, size_t touchedBytes) {
  return touchedBytes >= kStreamingBytes && reinterpret_cast<uintptr_t>(dst) % 16 == 0;
}

// kStreaming: whole blocks go out through the staging blocks (kBlock *
// kDstSize must be whole 64-byte lines). A separate instantiation rather
// than a run-time choice in the loop: a second inlined copy of the block in
// the loop cost the kernels that never stream about 10% (register
// allocation).
// kTwoSourcePrefetchBytes: the same for exactly two sources (0: none).
template <size_t kBlock, size_t kSrcSize, size_t kDstSize, size_t kPrefetchBytes, size_t kTwoSourcePrefetchBytes,
          bool kStreaming, class Sources, class Block>
void forEachBlock(std::byte* dst, const void* const* srcs, Sources nsrcs, size_t count, Block block) {
  // Beyond two sources the hardware prefetcher keeps too few misses in
  // flight; asking for each source's lines kPrefetchBytes ahead adds them.
  // With two sources it does for kernels that stream their stores or are
  // compute-bound (FP8; see kernel_templates.h for the distances).
  constexpr size_t kPrefetchElements = kPrefetchBytes / kSrcSize;
  constexpr size_t kTwoSourcePrefetchElements = kTwoSourcePrefetchBytes / kSrcSize;
  constexpr size_t kBlockBytes = kBlock * kDstSize;
  static_assert(!kStreaming || kBlockBytes % 64 == 0);
  const auto source = [srcs](int k, size_t i) { return static_cast<const std::byte*>(srcs[k]) + i * kSrcSize; };
  alignas(64) std::byte staged[kStreaming ? 2 : 1][kBlockBytes];
  size_t i = 0;
  for (; i + kBlock <= count; i += kBlock) {
    if (nsrcs > 2 && i + kPrefetchElements + kBlock <= count)
      for (int k = 0; k < nsrcs; ++k)
        for (size_t line = 0; line < kBlock * kSrcSize; line += 64)
          __builtin_prefetch(source(k, i + kPrefetchElements) + line);
    if (kTwoSourcePrefetchElements > 0 && nsrcs == 2 && i + kTwoSourcePrefetchElements + kBlock <= count)
      for (int k = 0; k < 2; ++k)
        for (size_t line = 0; line < kBlock * kSrcSize; line += 64)
          __builtin_prefetch(source(k, i + kTwoSourcePrefetchElements) + line);
    if constexpr (kStreaming) {
      block([&](int k) { return source(k, i); }, staged[(i / kBlock) % 2], i);
      // The previous block's staged bytes.
      if (i > 0) streamOut<kBlockBytes>(dst + i * kDstSize - kBlockBytes, staged[1 - (i / kBlock) % 2]);
    } else {
      block([&](int k) { return source(k, i); }, dst + i * kDstSize, i);
    }
  }
  if constexpr (kStreaming) {
    if (i > 0) streamOut<kBlockBytes>(dst + i * kDstSize - kBlockBytes, staged[(i / kBlock - 1) % 2]);
    // Non-temporal stores are weakly ordered: make them visible before the
    // call returns (and whatever the caller publishes after it).
    _mm_sfence();
  }
  if (i == count) return;
  const size_t n = count - i;
  alignas(64) std::byte in[wholePieces(kBlock * kSrcSize)];
  alignas(64) std::byte out[wholePieces(kBlock * kDstSize)];
  const auto stage = [&](int k) {
    stageTail<kBlock * kSrcSize>(in, source(k, i), n * kSrcSize);
    return static_cast<const std::byte*>(in);
  };
  block(stage, out, i);
  unstageTail(dst + i * kDstSize, out, n * kDstSize);
}

}  // namespace
}  // namespace trnccl::device::kernels
