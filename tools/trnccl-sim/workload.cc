#include "workload.h"

#include <cstdio>

#include "base/error.h"
#include "cli/usage_error.h"
#include "nccl_tests/datatypes.h"
#include "nccl_tests/sizes.h"
#include "sim/machine.h"

namespace trnccl::simtool {

Workload parseWorkload(const std::string& text) {
  Workload w;
  size_t from = 0;
  while (from < text.size()) {
    const size_t comma = std::min(text.find(',', from), text.size());
    const std::string field = text.substr(from, comma - from);
    from = comma + 1;
    const size_t eq = field.find('=');
    const std::string name = field.substr(0, eq), value = eq == std::string::npos ? "" : field.substr(eq + 1);
    try {
      if (name == "compute_ms")
        w.computeSec = std::stod(value) / 1e3;
      else if (name == "grad")
        w.gradientBytes = perf::parse_size(value);
      else if (name == "bucket")
        w.bucketBytes = perf::parse_size(value);
      else if (name == "overlap" && (value == "0" || value == "1"))
        w.overlap = value == "1";
      else if (name == "dtype")
        w.type = perf::parse_types(value).at(0);
      else
        throw std::invalid_argument("unknown field or value");
    } catch (const std::exception& e) {
      throwError(trncclInvalidArgument,
                 "--workload: '" + field +
                     "' (fields: compute_ms=N, grad=SIZE, bucket=SIZE, overlap=0|1, dtype=T): " + e.what());
    }
  }
  if (w.computeSec < 0 || w.bucketBytes == 0 || w.gradientBytes == 0)
    throwError(trncclInvalidArgument, "--workload: compute_ms must be >= 0, grad and bucket above 0");
  return w;
}

std::string simulateWorkload(const Workload& w, const std::string& topology, const std::vector<int>& instances,
                             sim::Engine engine) {
  char line[256];
  std::snprintf(line, sizeof line,
                "# data-parallel step on %s: compute %.1f ms, %zu gradient bytes in %zu-byte buckets, overlap %s\n"
                "# %9s %7s %-18s %12s %12s %12s %12s %10s\n",
                topology.c_str(), w.computeSec * 1e3, w.gradientBytes, w.bucketBytes, w.overlap ? "on" : "off",
                "instances", "ranks", "bucket algo", "bucket(us)", "comm(ms)", "exposed(ms)", "step(ms)", "efficiency");
  std::string text = line;
  const size_t typeBytes = perf::type_size(w.type);
  const size_t buckets = (w.gradientBytes + w.bucketBytes - 1) / w.bucketBytes;
  double firstStep = 0;
  for (int n : instances) {
    sim::Knobs knobs;
    knobs.nodes = n;
    const sim::Machine machine(topology, knobs);
    sim::Call call;
    call.count = w.bucketBytes / typeBytes;
    call.type = w.type;
    call.engine = engine;
    const sim::Prediction bucket = sim::simulate(machine, call);
    const double comm = static_cast<double>(buckets) * bucket.seconds;
    // With overlap, bucket k's all-reduce starts once backward has computed
    // its chunk and the previous all-reduce is done: the last ends at the
    // later of (one chunk, then every all-reduce) and (all of backward, then
    // one all-reduce).
    const double backward = w.computeSec * 2 / 3, chunk = backward / static_cast<double>(buckets);
    const double exposed = w.overlap ? std::max(chunk + comm - backward, bucket.seconds) : comm;
    const double step = w.computeSec + exposed;
    if (firstStep == 0) firstStep = step;
    std::snprintf(line, sizeof line, "  %9d %7d %-18s %12.1f %12.2f %12.2f %12.2f %9.1f%%\n", n, machine.ranks(),
                  bucket.algorithm.c_str(), bucket.seconds * 1e6, comm * 1e3, exposed * 1e3, step * 1e3,
                  100 * firstStep / step);
    text += line;
  }
  return text + "# efficiency: the first row's step time over this row's (weak scaling: the same work per rank)\n";
}

}  // namespace trnccl::simtool
