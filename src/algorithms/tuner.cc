#include "algorithms/tuner.h"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "algorithms/lower_bound.h"
#include "algorithms/neuron_profile.h"
#include "algorithms/registry.h"
#include "base/datatype.h"
#include "base/error.h"

namespace trnccl::algo {
namespace {

int log2Floor(size_t bytes) { return bytes == 0 ? -1 : std::bit_width(bytes) - 1; }

// In the registry's order, the tie rule's (registry.h: preferredOnTie).
std::vector<std::unique_ptr<Algorithm>> makeRegisteredAlgorithms() {
  std::vector<std::unique_ptr<Algorithm>> all;
  for (const RegisteredAlgorithm& a : registeredAlgorithms()) all.push_back(a.make());
  return all;
}

std::string humanBytes(size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && bytes % 1024 == 0 && u < 4) bytes /= 1024, ++u;
  return std::to_string(bytes) + " " + units[u];
}

}  // namespace

Tuner::Tuner(AlgorithmFilter filter, const Network& network, const RankLayout* layout, Predictor predictor,
             Pruning pruning)
    : algorithms_(makeRegisteredAlgorithms()),
      filter_(std::move(filter)),
      network_(network),
      layout_(layout),
      predictor_(std::move(predictor)),
      pruning_(pruning) {}

Tuner::~Tuner() = default;

std::vector<std::string> Tuner::algorithmNames() {
  std::vector<std::string> names;
  for (const RegisteredAlgorithm& a : registeredAlgorithms()) names.push_back(a.name);
  return names;
}

const Algorithm* Tuner::named(const std::string& name) const {
  for (const auto& a : algorithms_)
    if (name == a->name()) return a.get();
  return nullptr;
}

CollectiveArgs Tuner::priced(const CollectiveArgs& args) const {
  CollectiveArgs each = args;
  each.maxStepElements = 0;  // the model pipelines nothing: chunking only adds latency terms
  each.layout = layout_;
  return each;
}

Prediction Tuner::predict(const Algorithm& algorithm, const CollectiveArgs& args) const {
  CostModel model(network_);
  const CollectiveArgs each = priced(args);
  for (int r = 0; r < args.nranks; ++r) model.add(*algorithm.steps(argsOfRank(each, r)));  // one rank at a time
  return model.prediction();
}

double Tuner::lowerBound(const Algorithm& algorithm, const CollectiveArgs& args, BoundRanks ranks) const {
  return algo::lowerBound(algorithm, priced(args), network_, ranks);
}

const Algorithm* Tuner::fastest(const std::vector<const Algorithm*>& candidates, const CollectiveArgs& at) const {
  struct Candidate {
    const Algorithm* algorithm;
    size_t preference;  // its place in candidates: the first of equal prices wins
    double bound;
  };
  std::vector<Candidate> order;
  for (size_t i = 0; i < candidates.size(); ++i)
    order.push_back(
        {candidates[i], i, pruning_ == Pruning::On ? lowerBound(*candidates[i], at, BoundRanks::First) : 0.0});
  std::stable_sort(order.begin(), order.end(),
                   [](const Candidate& a, const Candidate& b) { return a.bound < b.bound; });
  const Candidate* best = nullptr;
  double bestSeconds = 0;
  // The margin absorbs the rounding of sums a bound and a price add up in
  // different orders.
  const auto above = [&](double bound) { return best != nullptr && bound > bestSeconds * (1 + 1e-9); };
  for (const Candidate& c : order) {
    // Sorted by rank 0's bound: from here on none can price at or below the best.
    if (above(c.bound)) break;
    // The bound from more ranks may still rule this one out.
    if (best != nullptr && pruning_ == Pruning::On && above(lowerBound(*c.algorithm, at))) continue;
    const double seconds = (predictor_ ? predictor_(*c.algorithm, at) : predict(*c.algorithm, at)).seconds;
    if (best == nullptr || seconds < bestSeconds || (seconds == bestSeconds && c.preference < best->preference))
      best = &c, bestSeconds = seconds;
  }
  return best == nullptr ? nullptr : best->algorithm;
}

const Algorithm& Tuner::choose(const CollectiveArgs& args) const {
  std::lock_guard<std::mutex> lock(mutex_);
  // The size every rank agrees on, so every rank makes the same decision.
  const size_t bytes = agreedCount(args) * typeSize(args.type);
  // Neuron's ranges need not end at a power of two (RDH up to 56 MiB).
  const int neuron = filter_.followsNeuron(args.collective) ? neuronRange(args) : -1;
  const Bucket bucket{args.collective, args.type, log2Floor(bytes), args.root, neuron};
  auto it = decisions_.find(bucket);
  if (it == decisions_.end()) it = decisions_.emplace(bucket, &decide(args, neuron)).first;
  return *it->second;
}

const Algorithm& Tuner::decide(const CollectiveArgs& args, int neuron) const {
  // Decide at the bucket's first size, so the decision is the same for the
  // whole bucket whichever size of it comes first.
  CollectiveArgs at = args;
  const size_t bytes = args.count * typeSize(args.type);
  // A v-collective's blocks are the call's own: priced as they are.
  if (bytes > 0 && !isVariable(args.collective))
    at.count = std::max<size_t>(1, (size_t{1} << log2Floor(bytes)) / typeSize(args.type));
  at.layout = layout_;

  std::vector<const Algorithm*> candidates;
  std::string reasons;
  for (const auto& a : algorithms_) {
    if (!filter_.allows(args.collective, a->name())) continue;
    const std::string why = a->whyUnsupported(at);
    if (!why.empty()) {
      reasons += (reasons.empty() ? "" : "; ") + why;
      continue;
    }
    candidates.push_back(a.get());
  }
  const Algorithm* best = neuron >= 0 ? neuronChoice(candidates, neuron, layout_ ? layout_->instances() : 1) : nullptr;
  if (best == nullptr && candidates.size() == 1) {
    best = candidates[0];  // a forced algorithm wins without being priced
  } else if (best == nullptr) {
    best = fastest(candidates, at);
  }
  if (best == nullptr)
    throwError(trncclInvalidUsage, std::string("no allowed algorithm can run ") + collectiveName(args.collective) +
                                       " on " + std::to_string(args.nranks) + " ranks with TRNCCL_ALGO='" +
                                       filter_.spec() + "'" + (reasons.empty() ? "" : ": " + reasons));
  return *best;
}

std::string Tuner::describe(Collective collective, trncclDataType_t type, int nranks) const {
  std::string text = collectiveName(collective);
  text += ":";
  const Algorithm* current = nullptr;
  size_t from = 0;
  const size_t element = typeSize(type);
  auto close = [&](size_t last) {
    if (current) text += " " + humanBytes(from) + "-" + humanBytes(last) + " " + current->name() + ",";
  };
  for (size_t bytes = element; bytes <= (size_t{1} << 30); bytes *= 2) {
    CollectiveArgs args;
    args.collective = collective;
    args.nranks = nranks;
    args.count = bytes / element;
    args.type = type;
    const Algorithm* a = &choose(args);
    if (a != current) {
      close(bytes / 2);
      current = a, from = bytes;
    }
  }
  close(size_t{1} << 30);
  text.pop_back();
  return text;
}

}  // namespace trnccl::algo
