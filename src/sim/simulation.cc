#include "sim/simulation.h"

#include "algorithms/algorithm_filter.h"
#include "algorithms/tuner.h"
#include "base/error.h"
#include "sim/analytical_engine.h"
#include "sim/event_engine.h"

namespace trnccl::sim {

const char* engineName(Engine e) {
  switch (e) {
    case Engine::Analytical: return "analytical";
    case Engine::EventDriven: return "event";
    case Engine::Auto: return "auto";
  }
  return "?";
}

Engine parseEngine(const std::string& name) {
  for (Engine e : {Engine::Analytical, Engine::EventDriven, Engine::Auto})
    if (name == engineName(e)) return e;
  throwError(trncclInvalidArgument, "--engine '" + name + "': expected analytical, event or auto");
}

Prediction simulate(const Machine& machine, const Call& call) {
  if (machine.ranks() > kMaxRanks)
    throwError(trncclInvalidArgument, machine.describe() + ": the simulator builds every rank's schedule (and the "
                                      "tuner every candidate's), so it takes at most " + std::to_string(kMaxRanks) +
                                      " ranks");
  const std::vector<double> entry = entryTimes(call.stragglers, machine.ranks());
  const algo::Tuner tuner(algo::AlgorithmFilter(call.algorithm, "--algo", algo::Tuner::algorithmNames()),
                          machine.network(), &machine.layout());
  algo::CollectiveArgs args;
  args.collective = call.collective;
  args.nranks = machine.ranks();
  args.count = call.count;
  args.type = call.type;
  args.op = call.op;
  args.layout = &machine.layout();
  const algo::Algorithm* algorithm = nullptr;
  try {
    algorithm = &tuner.choose(args);
  } catch (const Error& e) {
    throwError(trncclInvalidArgument, std::string(e.what()));
  }
  // Every rank's schedule, as every rank of a job would build it.
  std::vector<algo::Schedule> all;
  all.reserve(static_cast<size_t>(args.nranks));
  size_t steps = 0;
  for (int r = 0; r < args.nranks; ++r) {
    args.rank = r;
    all.push_back(algorithm->build(args));
    steps += all.back().stepCount();
  }
  Prediction p;
  p.algorithm = algorithm->name();
  p.engine = call.engine != Engine::Auto ? call.engine
             : steps <= kEventEngineMaxSteps ? Engine::EventDriven
                                              : Engine::Analytical;
  Outcome o = p.engine == Engine::EventDriven ? runEvents(all, machine.network(), entry)
                                               : runAnalytical(all, machine.network(), entry);
  p.seconds = o.seconds, p.bound = std::move(o.bound), p.linkBytes = std::move(o.linkBytes);
  return p;
}

}  // namespace trnccl::sim
