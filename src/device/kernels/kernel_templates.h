// The kernel every reduction and float conversion runs, over lanes V and a
// codec per side: per block of four vectors,
//   acc = input(load(src0)); acc = op(acc, input(load(srck))) for k = 1..K-1;
//   store(finish(acc)) with one rounding.
// fp32, fp16, bf16 and fp8 use an ISA wrapper's FP32 lanes (accumulating in
// FP32); integers and fp64 use generic vectors of their own type. A
// conversion is one source with Sum.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "device/kernels/blocks.h"
#include "device/kernels/codecs.h"
#include "device/kernels/kernel_table.h"
#include "device/kernels/ops.h"
#include "device/kernels/rounding.h"
#include "device/kernels/simd/lanes.h"

namespace trnccl::device::kernels {
namespace {

struct Job {
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
void reduceBlock(SourceAt sourceAt, int nsrcs, std::byte* out, const Op& op, const Rounding& rounding, uint64_t index) {
  static_assert(kVectors % Src::kGroup == 0 && kVectors % Dst::kGroup == 0);
  constexpr size_t kSrcStride = V::kLanes * Src::kSize;
  typename V::F acc[kVectors], x[kVectors];
  const std::byte* first = sourceAt(0);
  for (size_t u = 0; u < kVectors; u += Src::kGroup) Src::load(first + u * kSrcStride, acc + u);
  op.input(0, acc);
  for (int k = 1; k < nsrcs; ++k) {
    const std::byte* src = sourceAt(k);
    for (size_t u = 0; u < kVectors; u += Src::kGroup) Src::load(src + u * kSrcStride, x + u);
    op.input(k, x);
    for (size_t u = 0; u < kVectors; ++u) acc[u] = op.combine(acc[u], x[u]);
  }
  for (size_t u = 0; u < kVectors; ++u) acc[u] = op.finish(acc[u]);
  if constexpr (Rounding::kStochastic) {
    typename V::U random[kVectors];
    rounding.template words<kVectors>(index, random);
    Dst::template storeRoundingStochastically<kVectors>(out, acc, random);
  } else {
    for (size_t u = 0; u < kVectors; u += Dst::kGroup) Dst::store(out + u * V::kLanes * Dst::kSize, acc + u);
  }
}

// How far ahead kernels with more than two sources prefetch each source
// (blocks.h). 256 bytes took 8-source 16-bit sums at 64 MiB from about 0.6
// to 0.8 of STREAM add; longer distances measured slower there (fp32 about
// 10% at 512 and 1024 bytes). Stochastic rounding's 16-bit sums, though,
// gained about 15% from 1024 bytes (bf16 8-source sums at 64 MiB about 22
// -> 26 GB/s), FP8 neither gained nor lost: why the two differ is not known.
// FP8 sources with nearest even prefetch 384 bytes ahead: 8-source sums at
// 64 MiB measured about 0.82 -> 0.87 of STREAM add on the byte-lane path
// (avx512vbmi) against 256, while 128, 448 and 512 bytes were slower (0.65
// at 128 and 512), and so were blocks of eight vectors (0.54). 192 bytes
// for 16-bit sources measured within noise for 8-source sums and 5-10%
// slower for 8-source PreMulSum (issue 19, fifth pass).
template <class Rounding, class Src>
inline constexpr size_t kPrefetchBytes = Rounding::kStochastic ? 1024
                                         : Src::kSize == 1     ? 384
                                                               : 256;

template <size_t kVectors, class V, class Src, class Dst, class Op, class Rounding>
void runBlocksOf(const Job& job, const Op& op, const Rounding& rounding) {
  const auto block = [&](auto sourceAt, std::byte* out, size_t first) {
    reduceBlock<kVectors, V, Src, Dst>(sourceAt, job.nsrcs, out, op, rounding, job.firstIndex + first);
  };
  constexpr size_t kBlock = kVectors * V::kLanes;
  // Streaming stores (blocks.h) where they measured faster: 16-bit
  // destinations (bf16 and fp16 sums of two sources at 64 MiB about 33 ->
  // 45-50 GB/s). They measured slower for 32- and 64-bit ones (fp32, int32,
  // fp64 about 40 -> 33 GB/s; why is not known) and for the compute-bound
  // kernels: FP8 (as fast from DRAM as from L1; e5m2 about 26 -> 23).
  // Stochastic rounding streams too since its random bits cost a hash per
  // pair of elements (rounding.h): bf16 sums of two sources at 64 MiB about
  // 35 -> 43 GB/s, fp16 31 -> 37 (with one hash per element it measured
  // slower). (The scalar ISA's blocks are not whole lines.)
  constexpr bool kMayStream = Dst::kSize == 2 && !Src::kComputeBound && kBlock * Dst::kSize % 64 == 0;
  if constexpr (kMayStream) {
    const size_t touchedBytes = job.count * (static_cast<size_t>(job.nsrcs) * Src::kSize + Dst::kSize);
    if (streams(job.dst, job.nsrcs, touchedBytes))
      return forEachBlock<kBlock, Src::kSize, Dst::kSize, kPrefetchBytes<Rounding, Src>, true>(
          job.dst, job.srcs, job.nsrcs, job.count, block);
  }
  forEachBlock<kBlock, Src::kSize, Dst::kSize, kPrefetchBytes<Rounding, Src>, false>(job.dst, job.srcs, job.nsrcs,
                                                                                     job.count, block);
}

template <class V, class Src, class Dst, class Op, class Rounding>
void runBlocks(const Job& job, const Op& op, const Rounding& rounding) {
  // Four vectors in flight per source hide load latency and loop overhead.
  // FP8 sources (decoded kGroup vectors at a time) with one or two of them
  // are compute-bound and gain from eight; with more sources eight run
  // short of registers and prefetch distance.
  if constexpr (Src::kGroup > 1) {
    if (job.nsrcs <= 2) return runBlocksOf<8, V, Src, Dst>(job, op, rounding);
  }
  runBlocksOf<4, V, Src, Dst>(job, op, rounding);
}

// One rounding policy chosen per call; stochastic only where the destination
// is a narrow format.
template <class V, class Src, class Dst, class Op>
void runJob(const Job& job, const Op& op, const RoundingMode& mode, const RandomKey& key) {
  if constexpr (Dst::kRounds) {
    if (mode.kind == Rounding::Stochastic)
      return runBlocks<V, Src, Dst>(job, op, RoundStochastically<V>(key, job.firstIndex));
  }
  runBlocks<V, Src, Dst>(job, op, RoundNearestEven{});
}

// The operator of a call: PreMulSum with its scalar in the lanes' type, a
// built-in one with the avg divisor.
template <class Op, class Codec>
Op operatorOf(const ReduceArgs& args) {
  if constexpr (Op::kPreMultiplies)
    return Op(Codec::splat(static_cast<const std::byte*>(args.preMultiply.scalar)), args.preMultiply.sources);
  else
    return Op(args.avgDivisor);
}

template <class V, class Codec, class Op>
void reduceKernel(const ReduceArgs& args, const RandomKey& key) {
  const Job job{static_cast<std::byte*>(args.dst), args.srcs, args.nsrcs, args.count, args.rounding.firstIndex};
  runJob<V, Codec, Codec>(job, operatorOf<Op, Codec>(args), args.rounding, key);
}

template <class V, class Src, class Dst>
void convertKernel(const ConvertArgs& args, const RandomKey& key) {
  const Job job{static_cast<std::byte*>(args.dst), &args.src, 1, args.count, args.rounding.firstIndex};
  runJob<V, Src, Dst>(job, Sum<V>(1), args.rounding, key);
}

// Rounds once, to nearest even (fp32 results are never rounded stochastically).
template <class V>
void convertDoubleToFloat(const ConvertArgs& args, const RandomKey&) {
  const auto* src = static_cast<const std::byte*>(args.src);
  auto* dst = static_cast<std::byte*>(args.dst);
  for (size_t i = 0; i < args.count; ++i) {
    const double value = simd::loadAs<double>(src + i * sizeof(double));
    const float rounded = std::isnan(value) ? std::bit_cast<float>(kFp32CanonicalNaN) : static_cast<float>(value);
    simd::storeAs(dst + i * sizeof(float), rounded);
  }
}

}  // namespace
}  // namespace trnccl::device::kernels
