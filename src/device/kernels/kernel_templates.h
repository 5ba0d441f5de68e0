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
#include <type_traits>
#include <utility>

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
template <size_t kVectors, class V, class Src, class Dst, class Op, class Rounding, class SourceAt, class Sources>
void reduceBlock(SourceAt sourceAt, Sources nsrcs, std::byte* out, const Op& op, const Rounding& rounding,
                 uint64_t index) {
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
// (blocks.h): 384 bytes for FP8, 256 for wider types. Measured with 8
// sources at 64 MiB once each source had loads of its own (see
// withSourceCount), in ratios to STREAM add: FP8 sums 0.89-0.99 at 384
// against 0.70 at 512 and 0.76 with none (stochastic rounding 0.84 against
// 0.72-0.75 at 256 and 1024); 16-bit sums 0.92-1.00 at 128 and 256 and with
// none, 0.84-0.89 at 384-1024, and with stochastic rounding 0.94-1.01 at
// 256 against 0.79-0.82 at 1024 (which the loop before it had needed); fp32
// within noise of none (issue 19, seventh pass).
template <class Src>
inline constexpr size_t kPrefetchBytes = Src::kSize == 1 ? 384 : 256;
// With two sources, kernels that stream their stores (16-bit results at 32
// MiB and more) and FP8 kernels prefetch each source 2 KiB ahead: at 64 MiB
// on an Intel Xeon (issue 35, docs/kernels.md) 16-bit sums went from
// 1.11-1.17 to 1.31-1.32 of STREAM add (stochastic rounding 0.89-0.96 ->
// 1.15-1.23), FP8 sums from 0.74-0.75 to 0.91-0.92 (0.55-0.58 -> 0.63-0.65).
template <class Src, bool kStreaming>
inline constexpr size_t kTwoSourcePrefetchBytes = kStreaming || Src::kComputeBound ? 2048 : 0;

template <size_t kVectors, class V, class Src, class Dst, class Op, class Rounding, class Sources>
void runBlocksOf(const Job& job, Sources nsrcs, const Op& op, const Rounding& rounding) {
  const auto block = [&](auto sourceAt, std::byte* out, size_t first) {
    reduceBlock<kVectors, V, Src, Dst>(sourceAt, nsrcs, out, op, rounding, job.firstIndex + first);
  };
  constexpr size_t kBlock = kVectors * V::kLanes;
  // Streaming stores (blocks.h) where they measured faster: 16-bit
  // destinations (bf16 and fp16 sums of two sources at 64 MiB about 33 ->
  // 45-50 GB/s, of eight 0.88 -> 1.02 of STREAM add) and wider ones with
  // more than two sources (8-source fp32, fp64 and int32 sums about 0.98 ->
  // 1.07). With two sources they measured slower for fp32 and fp64 (0.99 ->
  // 0.77; why is not known) and for the compute-bound kernels: FP8 (as fast
  // from DRAM as from L1; e5m2 about 26 -> 23). Stochastic rounding streams
  // too since its random bits cost a hash per pair of elements (rounding.h):
  // bf16 sums of two sources at 64 MiB about 35 -> 43 GB/s, fp16 31 -> 37.
  // (The scalar ISA's blocks are not whole lines.)
  constexpr bool kMayStream = Dst::kSize >= 2 && !Src::kComputeBound && kBlock * Dst::kSize % 64 == 0;
  if constexpr (kMayStream) {
    const size_t touchedBytes = job.count * (static_cast<size_t>(job.nsrcs) * Src::kSize + Dst::kSize);
    if ((Dst::kSize == 2 || job.nsrcs > 2) && streams(job.dst, touchedBytes))
      return forEachBlock<kBlock, Src::kSize, Dst::kSize, kPrefetchBytes<Src>, kTwoSourcePrefetchBytes<Src, true>,
                          true>(job.dst, job.srcs, nsrcs, job.count, block);
  }
  forEachBlock<kBlock, Src::kSize, Dst::kSize, kPrefetchBytes<Src>, kTwoSourcePrefetchBytes<Src, false>, false>(
      job.dst, job.srcs, nsrcs, job.count, block);
}

template <class V, class Src, class Dst, class Op, class Rounding, class Sources>
void runBlocks(const Job& job, Sources nsrcs, const Op& op, const Rounding& rounding) {
  // Four vectors in flight per source hide load latency and loop overhead.
  // FP8 sources (decoded kGroup vectors at a time) with one or two of them
  // are compute-bound and gain from eight; with more sources eight run
  // short of registers and prefetch distance.
  if constexpr (Src::kGroup > 1 && std::is_same_v<Sources, int>) {
    if (nsrcs <= 2) return runBlocksOf<8, V, Src, Dst>(job, nsrcs, op, rounding);
  }
  runBlocksOf<4, V, Src, Dst>(job, nsrcs, op, rounding);
}

// One rounding policy chosen per call; stochastic only where the destination
// is a narrow format.
template <class V, class Src, class Dst, class Op, class Sources>
void runJob(const Job& job, Sources nsrcs, const Op& op, const RoundingMode& mode, const RandomKey& key) {
  if constexpr (Dst::kRounds) {
    if (mode.kind == Rounding::Stochastic)
      return runBlocks<V, Src, Dst>(job, nsrcs, op, RoundStochastically<V>(key, job.firstIndex));
  }
  runBlocks<V, Src, Dst>(job, nsrcs, op, RoundNearestEven{});
}

// Reductions of 3 .. kMaxUnrolledSources sources are compiled for their
// count: the loop over the sources unrolls, and each source gets load
// instructions of its own. The hardware's stride prefetchers learn one
// stride per load instruction; a loop's one load serving every source in
// turn taught them none, which left the buffers' placement relative to each
// other in charge (8-source bf16 sums at 64 MiB measured 12-35 GB/s by
// placement alone, 31-34 compiled for 8; issue 19). Beyond it, and for one
// or two sources (whose loops already have a load each), an int.
inline constexpr int kMaxUnrolledSources = 8;

template <class Run>
void withSourceCount(int nsrcs, Run run) {
  const auto compiled = [&]<int... k>(std::integer_sequence<int, k...>) {
    return ((nsrcs == k + 3 && (run(std::integral_constant<int, k + 3>{}), true)) || ...);
  };
  if (!compiled(std::make_integer_sequence<int, kMaxUnrolledSources - 2>{})) run(nsrcs);
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
  const Op op = operatorOf<Op, Codec>(args);
  withSourceCount(args.nsrcs, [&](auto nsrcs) { runJob<V, Codec, Codec>(job, nsrcs, op, args.rounding, key); });
}

template <class V, class Src, class Dst>
void convertKernel(const ConvertArgs& args, const RandomKey& key) {
  const Job job{static_cast<std::byte*>(args.dst), &args.src, 1, args.count, args.rounding.firstIndex};
  runJob<V, Src, Dst>(job, 1, Sum<V>(1), args.rounding, key);
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
