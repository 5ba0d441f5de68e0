// trnccl-kernel-bench: bandwidth of every reduction kernel (type x op, and PreMulSum, x
// K = 2, 8 sources x 4 KiB, 1 MiB, 64 MiB per buffer) on the selected ISA,
// beside memcpy and STREAM add at the same sizes, then a summary table.
// Google Benchmark flags work as usual (e.g. --benchmark_filter=float/sum).
// By default each benchmark runs 3 repetitions of at least 0.05 s, and the
// repetitions of all benchmarks are interleaved in random order, so that
// drift in the machine's memory bandwidth (it is shared) hits the kernels
// and their STREAM reference alike. TRNCCL_STOCHASTIC_ROUNDING=1 measures
// the 16- and 8-bit float kernels with stochastic rounding, as the library
// runs them under that setting. TRNCCL_KERNEL_BENCH_ALIGNMENT=N (a power of
// two, default 64) starts every buffer at a multiple of N bytes;
// TRNCCL_KERNEL_BENCH_SPACING=N (a multiple of 64) instead lays them out
// one after another in one allocation, N bytes between each and the next;
// TRNCCL_KERNEL_BENCH_OFFSET=N (a multiple of 64) instead starts buffer j
// (the sources, then the destination) j x N bytes past a 2 MiB boundary,
// e.g. 64 for buffers that are 64-byte but not 4 KiB aligned, each at its
// own offset in a page, or 4096 for 4 KiB-aligned ones (N = 0: 2 MiB
// aligned). By default aligned_alloc puts every buffer 64 bytes into a page.
#include <benchmark/benchmark.h>

#include <bit>
#include <cstdint>
#include <exception>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/datatype.h"
#include "base/env.h"
#include "bench_buffers.h"
#include "bench_names.h"
#include "device/kernels/kernels.h"
#include "reference_loops.h"
#include "summary.h"

namespace trnccl::bench {
namespace {

// PreMulSum's scalar: 0.5 in a floating type, 3 in an integer one.
uint64_t scalarOf(trncclDataType_t type) {
  uint64_t bits = 3;
  if (isFloatType(type)) {
    const float half = 0.5f;
    device::kernels::ConvertArgs args;
    args.dst = &bits;
    args.dstType = type;
    args.src = &half;
    args.count = 1;
    device::kernels::convert(args);
  }
  return bits;
}

void benchReduce(benchmark::State& state, device::kernels::Isa isa, device::kernels::Rounding rounding,
                 trncclDataType_t type, BenchOp op, int nsrcs, size_t bytes) {
  BenchBuffers& buffers = BenchBuffers::instance();
  device::kernels::ReduceArgs args;
  args.dst = buffers.destination();
  args.srcs = buffers.sources();
  args.nsrcs = nsrcs;
  args.count = bytes / typeSize(type);
  args.type = type;
  args.op = op.op;
  args.avgDivisor = static_cast<uint64_t>(nsrcs);
  const uint64_t scalar = scalarOf(type);
  if (op.preMultiplies) args.preMultiply = {&scalar, (uint64_t{1} << (nsrcs - 1)) - 1};
  args.rounding.kind = rounding;
  for (auto _ : state) {
    device::kernels::reduce(isa, args);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>((nsrcs + 1) * bytes));
}

void benchStreamAdd(benchmark::State& state, size_t bytes) {
  BenchBuffers& buffers = BenchBuffers::instance();
  auto* c = static_cast<float*>(buffers.destination());
  const auto* a = static_cast<const float*>(buffers.sources()[0]);
  const auto* b = static_cast<const float*>(buffers.sources()[1]);
  for (auto _ : state) {
    streamAdd(c, a, b, bytes / sizeof(float));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(3 * bytes));
}

void benchMemcpy(benchmark::State& state, size_t bytes) {
  BenchBuffers& buffers = BenchBuffers::instance();
  for (auto _ : state) {
    copyBytes(buffers.destination(), buffers.sources()[0], bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(2 * bytes));
}

void registerBenchmarks(device::kernels::Isa isa, device::kernels::Rounding rounding) {
  for (size_t bytes : kBufferBytes) {
    benchmark::RegisterBenchmark(referenceName(kStreamAdd, bytes).c_str(), benchStreamAdd, bytes);
    benchmark::RegisterBenchmark(referenceName(kMemcpy, bytes).c_str(), benchMemcpy, bytes);
  }
  for (trncclDataType_t type : kTypes)
    for (const BenchOp& op : kOps)
      for (int nsrcs : kSourceCounts)
        for (size_t bytes : kBufferBytes)
          benchmark::RegisterBenchmark(reduceName(type, op, nsrcs, bytes).c_str(), benchReduce, isa, rounding, type, op,
                                       nsrcs, bytes);
}

// The defaults come first, so flags on the command line override them.
std::vector<char*> withDefaultFlags(int argc, char** argv) {
  static std::string defaults[] = {"--benchmark_repetitions=3", "--benchmark_min_time=0.05",
                                   "--benchmark_enable_random_interleaving=true",
                                   "--benchmark_display_aggregates_only=true"};
  std::vector<char*> args{argv[0]};
  for (std::string& flag : defaults) args.push_back(flag.data());
  args.insert(args.end(), argv + 1, argv + argc);
  args.push_back(nullptr);
  return args;
}

}  // namespace
}  // namespace trnccl::bench

int main(int argc, char** argv) {
  using namespace trnccl;
  std::vector<char*> args = bench::withDefaultFlags(argc, argv);
  int count = static_cast<int>(args.size()) - 1;
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  device::kernels::Isa isa;
  bool stochastic;
  int64_t alignment;
  std::optional<int64_t> spacing;
  std::optional<int64_t> offset;
  try {
    isa = device::kernels::selectedIsa();
    stochastic = env::getBool("TRNCCL_STOCHASTIC_ROUNDING", false);
    alignment = env::getInt("TRNCCL_KERNEL_BENCH_ALIGNMENT", 64, 64, int64_t{1} << 30);
    if (!std::has_single_bit(static_cast<uint64_t>(alignment)))
      throw std::invalid_argument("TRNCCL_KERNEL_BENCH_ALIGNMENT=" + std::to_string(alignment) +
                                  " is not a power of two");
    if (env::get("TRNCCL_KERNEL_BENCH_SPACING")) {
      spacing = env::getInt("TRNCCL_KERNEL_BENCH_SPACING", 0, 0, int64_t{1} << 30);
      if (*spacing % 64 != 0)
        throw std::invalid_argument("TRNCCL_KERNEL_BENCH_SPACING=" + std::to_string(*spacing) +
                                    " is not a multiple of 64");
    }
    if (env::get("TRNCCL_KERNEL_BENCH_OFFSET")) {
      offset = env::getInt("TRNCCL_KERNEL_BENCH_OFFSET", 0, 0, int64_t{1} << 20);
      if (*offset % 64 != 0)
        throw std::invalid_argument("TRNCCL_KERNEL_BENCH_OFFSET=" + std::to_string(*offset) +
                                    " is not a multiple of 64");
    }
  } catch (
      const std::exception& e) {  // a bad TRNCCL_KERNEL_ISA, TRNCCL_STOCHASTIC_ROUNDING, alignment, spacing or offset
    std::cerr << argv[0] << ": " << e.what() << "\n";
    return 1;
  }
  if (offset) {
    bench::BenchBuffers::setOffset(static_cast<size_t>(*offset));
    benchmark::AddCustomContext("buffer offset", std::to_string(*offset));
  } else if (spacing) {
    bench::BenchBuffers::setSpacing(static_cast<size_t>(*spacing));
    benchmark::AddCustomContext("buffer spacing", std::to_string(*spacing));
  } else {
    bench::BenchBuffers::setAlignment(static_cast<size_t>(alignment));
    benchmark::AddCustomContext("buffer alignment", std::to_string(alignment));
  }
  const char* roundingName = stochastic ? "stochastic" : "nearest-even";
  benchmark::AddCustomContext("kernel ISA", device::kernels::isaName(isa));
  benchmark::AddCustomContext("rounding", roundingName);
  bench::registerBenchmarks(
      isa, stochastic ? device::kernels::Rounding::Stochastic : device::kernels::Rounding::NearestEven);
  bench::SummaryReporter reporter(std::string(device::kernels::isaName(isa)) + ", " + roundingName + " rounding");
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
