#include "chakra_study.h"

#include "chakra_replay.h"
#include "sim/machine.h"

namespace trnccl::simtool {

std::string chakraStudy(const Options& options) {
  const chakra::Trace trace = chakra::readTrace(options.chakra);
  const Variant& variant = options.variants.at(0);
  const sim::Machine machine(variant.topology, variant.knobs, options.ranks, options.rankOrder);
  sim::Call call;
  call.type = options.type;
  call.op = options.op;
  call.algorithm = options.algorithms.at(0);
  call.engine = options.engine;
  return chakra::formatReplay(chakra::replay(trace, machine, call), options.chakra, machine);
}

}  // namespace trnccl::simtool
