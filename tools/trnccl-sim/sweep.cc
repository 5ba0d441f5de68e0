#include "sweep.h"

#include <optional>

#include "base/error.h"
#include "nccl_tests/datatypes.h"
#include "sim/folding.h"
#include "sim/machine.h"
#include "sim/simulation.h"

namespace trnccl::simtool {

sim::Call callOf(const Options& o, const std::string& algorithm, size_t count) {
  sim::Call call;
  call.collective = simulatedCollective(o.collective);
  call.count = count;
  call.type = o.type;
  call.op = o.op;
  call.algorithm = algorithm;
  call.engine = o.engine;
  call.stragglers = o.stragglers;
  return call;
}

std::vector<Row> sweep(const Options& o, std::vector<std::string>& skipped) {
  std::vector<Row> rows;
  std::optional<Error> first;
  const size_t typeBytes = perf::type_size(o.type);
  for (const Variant& v : o.variants) {
    const auto on = std::make_shared<const sim::Machine>(v.topology, v.knobs, o.ranks, o.rankOrder);
    const sim::Machine& machine = *on;
    // Every row of this machine shares its folded prices: "auto" reuses the
    // rows of the algorithms it picks among, at every size.
    const sim::Uncertainty band = sim::uncertaintyOf(machine.topology());
    const std::optional<sim::Folding> folding = sim::foldingOf(machine);
    std::optional<sim::FoldedPricing> pricing;
    if (folding) pricing.emplace(machine.network(), *folding);
    for (const std::string& algorithm : o.algorithms)
      for (size_t bytes : o.sizes) {
        const perf::Layout layout = perf::layout_for(o.collective, bytes, typeBytes, machine.ranks());
        const sim::Call call = callOf(o, algorithm, layout.count);
        const size_t rowBytes = perf::row_bytes(layout, typeBytes);
        sim::Prediction prediction;
        try {
          prediction = sim::simulate(machine, call, pricing ? &*pricing : nullptr);
        } catch (const Error& e) {
          if (e.code() != trncclInvalidArgument) throw;  // a failure, not a row it cannot price
          if (!first) first = e;
          skipped.push_back(v.label + " " + algorithm + " " + std::to_string(rowBytes) + " B: " + e.what());
          continue;
        }
        Row row{v.label, on, machine.ranks(), algorithm, std::move(prediction), rowBytes, layout.count, 0, 0, band};
        const perf::Bandwidth bw =
            perf::bandwidth(o.collective, layout, typeBytes, machine.ranks(), row.prediction.seconds);
        row.algbw = bw.algbw, row.busbw = bw.busbw;
        rows.push_back(std::move(row));
      }
  }
  if (rows.empty() && first) throw *first;
  return rows;
}

}  // namespace trnccl::simtool
