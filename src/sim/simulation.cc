#include "sim/simulation.h"

#include <utility>

#include "algorithms/algorithm_filter.h"
#include "algorithms/cost_model.h"
#include "algorithms/tuner.h"
#include "base/error.h"
#include "sim/analytical_engine.h"
#include "sim/event_engine.h"
#include "sim/folding.h"

namespace trnccl::sim {

const char* engineName(Engine e) {
  switch (e) {
    case Engine::Analytical:
      return "analytical";
    case Engine::EventDriven:
      return "event";
    case Engine::Folded:
      return "folded";
    case Engine::Auto:
      return "auto";
  }
  return "?";
}

Engine parseEngine(const std::string& name) {
  for (Engine e : {Engine::Analytical, Engine::EventDriven, Engine::Folded, Engine::Auto})
    if (name == engineName(e)) return e;
  throwError(trncclInvalidArgument, "--engine '" + name + "': expected analytical, event, folded or auto");
}

namespace {

// The engine `call` asks for, or auto's choice before any schedule is built;
// Auto stays Auto while it depends on the schedules' size.
Engine engineFor(const Machine& machine, const Call& call, bool foldable) {
  if (call.engine == Engine::Folded) {
    if (!foldable)
      throwError(trncclInvalidArgument, "--engine folded: " + machine.describe() +
                                            " cannot be folded onto one instance (it needs several instances with "
                                            "the same NeuronCores in the same rank order)");
    if (!call.stragglers.empty())
      throwError(trncclInvalidArgument,
                 "--straggler: a late rank makes its instance unlike the others, so the "
                 "folded engine cannot price it (use --engine event or analytical)");
    return Engine::Folded;
  }
  if (call.engine == Engine::Auto && foldable && call.stragglers.empty() && machine.ranks() > kFoldAboveRanks)
    return Engine::Folded;
  if (machine.ranks() > kMaxRanks) {
    const std::string engines = call.engine == Engine::Auto ? "analytical and event" : engineName(call.engine);
    throwError(trncclInvalidArgument, machine.describe() + ": the " + engines +
                                          " engines build every rank's schedule (and the tuner every candidate's), so "
                                          "they take at most " +
                                          std::to_string(kMaxRanks) + " ranks" +
                                          (foldable ? "; --engine folded takes any number of alike instances" : ""));
  }
  return call.engine;
}

algo::CollectiveArgs argsOf(const Machine& machine, const Call& call) {
  algo::CollectiveArgs args;
  args.collective = call.collective;
  args.nranks = machine.ranks();
  args.count = call.count;
  args.type = call.type;
  args.op = call.op;
  args.layout = &machine.layout();
  args.v = algo::evenBlocks(call.collective, call.count, args.nranks);
  return args;
}

const algo::Algorithm& choose(const algo::Tuner& tuner, const algo::CollectiveArgs& args) {
  try {
    return tuner.choose(args);
  } catch (const Error& e) {
    throwError(trncclInvalidArgument, std::string(e.what()));
  }
}

Prediction simulateFolded(const Machine& machine, const Call& call, FoldedPricing& pricing) {
  const algo::Tuner tuner(algo::AlgorithmFilter(call.algorithm, "--algo", algo::Tuner::algorithmNames()),
                          machine.network(), &machine.layout(), pricing.predictor());
  const algo::CollectiveArgs args = argsOf(machine, call);
  const algo::Algorithm& algorithm = choose(tuner, args);
  // Priced by the tuner already unless it was the only candidate.
  Prediction p;
  try {
    p = pricing.price(algorithm, args);
  } catch (const Error& e) {
    // An algorithm asked for by name whose instances differ (a 2D torus
    // with fewer elements than ranks) is still priced, from its probed
    // instances, unless the folded engine was asked for by name; the
    // tuner's candidates are not (they lose instead).
    if (e.code() != trncclInvalidArgument || call.algorithm == "auto" || call.engine != Engine::Auto ||
        std::string(e.what()).find("does not treat the instances alike") == std::string::npos)
      throw;
    p = pricing.priceSlowest(algorithm, args);
  }
  p.algorithm = algorithm.name();
  return p;
}

}  // namespace

Prediction explain(const Machine& machine, const Call& call) {
  const std::optional<Folding> folding = foldingOf(machine);
  Call byModel = call;
  byModel.engine =
      folding && call.stragglers.empty() && machine.ranks() > kFoldAboveRanks ? Engine::Folded : Engine::Analytical;
  engineFor(machine, byModel, folding.has_value());  // what it cannot take, refused as simulate() does
  if (byModel.engine == Engine::Folded) return simulate(machine, byModel);
  if (!call.stragglers.empty())
    throwError(trncclInvalidArgument, "--straggler: the cost model that splits the time has no late ranks");
  const algo::Tuner tuner(algo::AlgorithmFilter(call.algorithm, "--algo", algo::Tuner::algorithmNames()),
                          machine.network(), &machine.layout());
  const algo::CollectiveArgs args = argsOf(machine, call);
  const algo::Algorithm& algorithm = choose(tuner, args);
  algo::CostModel model(machine.network());
  for (int r = 0; r < args.nranks; ++r) model.add(*algorithm.steps(algo::argsOfRank(args, r)));
  Prediction p;
  static_cast<algo::Prediction&>(p) = model.prediction();
  p.algorithm = algorithm.name();
  p.engine = Engine::Analytical;
  return p;
}

Prediction simulate(const Machine& machine, const Call& call, FoldedPricing* pricing) {
  const std::optional<Folding> folding = foldingOf(machine);
  const Engine engine = engineFor(machine, call, folding.has_value());
  const std::vector<double> entry = entryTimes(call.stragglers, machine.ranks());
  if (engine == Engine::Folded) {
    if (pricing != nullptr) return simulateFolded(machine, call, *pricing);
    FoldedPricing own(machine.network(), *folding);
    return simulateFolded(machine, call, own);
  }
  const algo::Tuner tuner(algo::AlgorithmFilter(call.algorithm, "--algo", algo::Tuner::algorithmNames()),
                          machine.network(), &machine.layout());
  algo::CollectiveArgs args = argsOf(machine, call);
  const algo::Algorithm* algorithm = &choose(tuner, args);
  // Every rank's steps, as every rank of a job would build them: generated
  // as the engine reads them, or built and compacted one rank at a time.
  CompactSchedules all;
  for (int r = 0; r < args.nranks; ++r) all.add(algorithm->steps(algo::argsOfRank(args, r)));
  const size_t steps = all.stepCount();
  const Engine chosen = engine != Engine::Auto          ? engine
                        : steps <= kEventEngineMaxSteps ? Engine::EventDriven
                                                        : Engine::Analytical;
  Prediction p = chosen == Engine::EventDriven ? runEvents(all, machine.network(), entry)
                                               : runAnalytical(all, machine.network(), entry);
  p.algorithm = algorithm->name();
  return p;
}

}  // namespace trnccl::sim
