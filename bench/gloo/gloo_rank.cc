#include "gloo_rank.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "gloo/allreduce.h"
#include "gloo/barrier.h"
#include "gloo/config.h"
#include "gloo/math.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/transport/tcp/device.h"
#include "logic/table.h"
#include "nccl_tests/sizes.h"

namespace trnccl::gloo_bench {

namespace {

using Reduce = void (*)(void*, const void*, const void*, size_t);

template <class T>
void allreduce(const std::shared_ptr<gloo::Context>& context, const T* in, T* out, size_t count, Reduce reduce) {
  gloo::AllreduceOptions options(context);
  options.setAlgorithm(gloo::AllreduceOptions::Algorithm::RING);
  options.setInput(const_cast<T*>(in), count);
  options.setOutput(out, count);
  options.setReduceFunction(reduce);
  gloo::allreduce(options);
}

// The same value on every rank: the largest (times) or the sum (counts).
double across_ranks(const std::shared_ptr<gloo::Context>& context, double value, Reduce reduce) {
  double result = 0;
  allreduce(context, &value, &result, 1, reduce);
  return result;
}

// Small integers, so that every sum is exact in float whatever the order.
float input_value(int rank, size_t i) { return static_cast<float>((rank + 1) * (i % 13 + 1)); }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

size_t run_rank(const Options& options, int rank, const std::string& store_dir) {
  gloo::transport::tcp::attr attr;
  attr.hostname = options.host;
  auto device = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore store(store_dir);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, options.ranks);
  context->connectFullMesh(store, device);

  const Reduce sum_floats = &gloo::sum<float>;
  const Reduce max_doubles = &gloo::max<double>;
  const Reduce sum_doubles = &gloo::sum<double>;
  const int n = options.ranks;
  if (rank == 0) {
    std::printf(
        "# trnccl-gloo-allreduce: Gloo %d.%d.%d ring all-reduce, float sum, %d ranks "
        "(processes), tcp transport bound to %s\n",
        GLOO_VERSION_MAJOR, GLOO_VERSION_MINOR, GLOO_VERSION_PATCH, n, options.host.c_str());
    std::printf("# time: the slowest rank's median of %d calls (after %d warm-up calls)\n", options.iters,
                options.warmup_iters);
    std::printf("#%12s  %12s  %6s  %6s  %8s  %7s  %7s  %6s\n", "size", "count", "type", "redop", "time", "algbw",
                "busbw", "#wrong");
    std::printf("#%12s  %12s  %6s  %6s  %8s  %7s  %7s  %6s\n", "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)",
                "");
    std::fflush(stdout);
  }
  size_t wrong_total = 0;
  for (const size_t bytes : perf::size_sweep(options.min_bytes, options.max_bytes, options.step_factor, 1)) {
    const size_t count = bytes / sizeof(float);
    if (count == 0) continue;  // Gloo has nothing to reduce below one float
    std::vector<float> in(count), out(count);
    for (size_t i = 0; i < count; ++i) in[i] = input_value(rank, i);
    std::vector<double> seconds;
    for (int iter = 0; iter < options.warmup_iters + options.iters; ++iter) {
      gloo::BarrierOptions barrier(context);
      gloo::barrier(barrier);
      const auto start = std::chrono::steady_clock::now();
      allreduce(context, in.data(), out.data(), count, sum_floats);
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      if (iter >= options.warmup_iters) seconds.push_back(took.count());
    }
    size_t wrong = 0;
    for (size_t i = 0; i < count; ++i) {
      const float expected = static_cast<float>((i % 13 + 1) * static_cast<size_t>(n * (n + 1) / 2));
      wrong += out[i] != expected;
    }
    const double time = across_ranks(context, median(seconds), max_doubles);
    wrong = static_cast<size_t>(across_ranks(context, static_cast<double>(wrong), sum_doubles));
    wrong_total += wrong;
    if (rank == 0) {
      const double row_bytes = static_cast<double>(count * sizeof(float));
      const double algbw = row_bytes / time / 1e9;
      const double busbw = algbw * 2.0 * (n - 1) / n;
      std::printf(" %12zu  %12zu  %6s  %6s  %8s  %7.2f  %7.2f  %6zu\n", count * sizeof(float), count, "float", "sum",
                  perf::format_time_us(time * 1e6).c_str(), algbw, busbw, wrong);
      std::fflush(stdout);
    }
  }
  return wrong_total;
}

}  // namespace trnccl::gloo_bench
