#include "sweep.h"

#include "logic/datatypes.h"
#include "sim/machine.h"

namespace trnccl::simtool {
namespace {

algo::Collective toAlgo(perf::Collective c) {
  switch (c) {
    case perf::Collective::all_reduce: return algo::Collective::AllReduce;
    case perf::Collective::all_gather: return algo::Collective::AllGather;
    case perf::Collective::reduce_scatter: return algo::Collective::ReduceScatter;
    case perf::Collective::broadcast: return algo::Collective::Broadcast;
    case perf::Collective::reduce: return algo::Collective::Reduce;
    case perf::Collective::alltoall: return algo::Collective::AllToAll;
    case perf::Collective::sendrecv: break;
  }
  throw UsageError("the simulator models collectives only");
}

}  // namespace

std::vector<Row> sweep(const Options& o) {
  std::vector<Row> rows;
  const size_t typeBytes = perf::type_size(o.type);
  for (const Variant& v : o.variants) {
    const sim::Machine machine(v.topology, v.knobs, o.ranks, o.rankOrder);
    for (const std::string& algorithm : o.algorithms)
      for (size_t bytes : o.sizes) {
        const perf::Layout layout = perf::layout_for(o.collective, bytes, typeBytes, machine.ranks());
        sim::Call call;
        call.collective = toAlgo(o.collective);
        call.count = layout.count;
        call.type = o.type;
        call.op = o.op;
        call.algorithm = algorithm;
        call.engine = o.engine;
        Row row{v.label, machine.ranks(), algorithm, sim::simulate(machine, call),
                perf::row_bytes(layout, typeBytes), layout.count, 0, 0};
        const perf::Bandwidth bw =
            perf::bandwidth(o.collective, layout, typeBytes, machine.ranks(), row.prediction.seconds);
        row.algbw = bw.algbw, row.busbw = bw.busbw;
        rows.push_back(std::move(row));
      }
  }
  return rows;
}

}  // namespace trnccl::simtool
