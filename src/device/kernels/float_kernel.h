// The FP32-accumulating kernel, for fp32, fp16, bf16 and fp8 reductions and
// for float conversions (one source, Sum): per block of vectors,
//   acc = load(src0); acc = op(acc, load(srck)) for k = 1..K-1;
//   store(finish(acc)) with one rounding.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "device/kernels/codecs.h"
#include "device/kernels/kernel_table.h"
#include "device/kernels/ops.h"
#include "device/kernels/rounding.h"

namespace trnccl::kernels {
namespace {

struct FloatJob {
  std::byte* dst;
  const void* const* srcs;
  int nsrcs;
  size_t count;
  uint64_t firstIndex;  // global index of element 0, for stochastic rounding
};

// kVectors vectors of each source; sourceAt(k) is where source k's block
// starts. Every source's block is loaded before anything is stored, so dst
// may alias the first source.
template <size_t kVectors, class V, class Src, class Dst, class Op, class Rounding, class SourceAt>
void reduceBlock(SourceAt sourceAt, int nsrcs, std::byte* out, const Op& op, const Rounding& rounding,
                 uint64_t index) {
  constexpr size_t kSrcStride = V::kLanes * Src::kSize;
  typename V::F acc[kVectors];
  const std::byte* first = sourceAt(0);
  for (size_t u = 0; u < kVectors; ++u) acc[u] = Src::load(first + u * kSrcStride);
  for (int k = 1; k < nsrcs; ++k) {
    const std::byte* src = sourceAt(k);
    for (size_t u = 0; u < kVectors; ++u) acc[u] = op.combine(acc[u], Src::load(src + u * kSrcStride));
  }
  for (size_t u = 0; u < kVectors; ++u)
    Dst::store(out + u * V::kLanes * Dst::kSize, op.finish(acc[u]), rounding, index + u * V::kLanes);
}

template <class V, class Src, class Dst, class Op, class Rounding>
void runBlocks(const FloatJob& job, const Op& op, const Rounding& rounding) {
  // Four vectors in flight per source hide load latency and loop overhead.
  constexpr size_t kVectors = 4;
  constexpr size_t kBlock = kVectors * V::kLanes;
  const auto source = [&](int k, size_t i) {
    return static_cast<const std::byte*>(job.srcs[k]) + i * Src::kSize;
  };
  size_t i = 0;
  for (; i + kBlock <= job.count; i += kBlock) {
    reduceBlock<kVectors, V, Src, Dst>([&](int k) { return source(k, i); }, job.nsrcs,
                                       job.dst + i * Dst::kSize, op, rounding, job.firstIndex + i);
  }
  // The tail, one vector at a time through zero-padded staging buffers.
  for (; i < job.count; i += V::kLanes) {
    const size_t n = std::min(V::kLanes, job.count - i);
    alignas(64) std::byte in[V::kLanes * Src::kSize] = {};
    alignas(64) std::byte out[V::kLanes * Dst::kSize];
    const auto stage = [&](int k) {
      std::memcpy(in, source(k, i), n * Src::kSize);
      return static_cast<const std::byte*>(in);
    };
    reduceBlock<1, V, Src, Dst>(stage, job.nsrcs, out, op, rounding, job.firstIndex + i);
    std::memcpy(job.dst + i * Dst::kSize, out, n * Dst::kSize);
  }
}

// One rounding policy chosen per call; stochastic only where the destination
// is a narrow format.
template <class V, class Src, class Dst, class Op>
void runFloatJob(const FloatJob& job, const Op& op, const RoundingMode& mode, const RandomKey& key) {
  if constexpr (Dst::kRounds) {
    if (mode.kind == Rounding::Stochastic)
      return runBlocks<V, Src, Dst>(job, op, RoundStochastically<V>{key});
  }
  runBlocks<V, Src, Dst>(job, op, RoundNearestEven{});
}

template <class V, class Codec, class Op>
void reduceFloat(const ReduceArgs& args, const RandomKey& key) {
  const FloatJob job{static_cast<std::byte*>(args.dst), args.srcs, args.nsrcs, args.count,
                     args.rounding.firstIndex};
  runFloatJob<V, Codec, Codec>(job, Op(args.avgDivisor), args.rounding, key);
}

template <class V, class Src, class Dst>
void convertFloat(const ConvertArgs& args, const RandomKey& key) {
  const FloatJob job{static_cast<std::byte*>(args.dst), &args.src, 1, args.count,
                     args.rounding.firstIndex};
  runFloatJob<V, Src, Dst>(job, Sum<V>(1), args.rounding, key);
}

}  // namespace
}  // namespace trnccl::kernels
