// Chooses the algorithm for each call: among the algorithms the user allows
// (AlgorithmFilter) that can run the call, the one the alpha-beta cost model
// (cost_model.h) predicts fastest on this communicator's network. The
// prediction is made from the candidates' schedules for every rank, so it is
// about exactly what would run. Candidates are priced cheapest lower bound
// first (lower_bound.h: rank 0's schedule, not every rank's), and one whose
// bound, or whose bound from three ranks, exceeds the best price so far is
// never priced, which cannot change the choice. With "neuron" (neuron_profile.h) Neuron's
// documented choice wins instead. Decisions are cached per collective, type
// and power-of-two size bucket (split where a Neuron range ends inside
// one); every rank computes the same ones.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/algorithm_filter.h"
#include "algorithms/cost_model.h"
#include "algorithms/lower_bound.h"

namespace trnccl::algo {

// Off prices every candidate: the exhaustive reference the pruned choice is
// tested against.
enum class Pruning { On, Off };

class Tuner {
 public:
  // How a candidate is priced: by default predict() below. A predictor must
  // never price a candidate below lowerBound() (pricing on a network whose
  // links are merged, as folding does, only adds to it).
  using Predictor = std::function<Prediction(const Algorithm&, const CollectiveArgs&)>;

  // `network` and `layout` (may be null) must outlive the tuner.
  Tuner(AlgorithmFilter filter, const Network& network, const RankLayout* layout, Predictor predictor = nullptr,
        Pruning pruning = Pruning::On);
  ~Tuner();

  // Every algorithm there is (registry.h), by name, for the filter and messages.
  static std::vector<std::string> algorithmNames();

  // The algorithm called `name`, whether or not the filter allows it (a
  // per-call choice overrides TRNCCL_ALGO); null if there is none.
  const Algorithm* named(const std::string& name) const;
  // Thread-safe. Throws Error(InvalidUsage) naming why when no allowed
  // algorithm can run the call.
  const Algorithm& choose(const CollectiveArgs& args) const;
  // The cost model's prediction for running `args` with `algorithm`.
  Prediction predict(const Algorithm& algorithm, const CollectiveArgs& args) const;
  // algo::lowerBound() (lower_bound.h) on this tuner's network.
  double lowerBound(const Algorithm& algorithm, const CollectiveArgs& args,
                    BoundRanks ranks = BoundRanks::Bounding) const;
  // The choice per size range on `nranks` ranks, e.g.
  // "allreduce: 4 B-32 KiB mesh, 64 KiB-1 GiB torus2d".
  std::string describe(Collective collective, trncclDataType_t type, int nranks) const;

 private:
  // `neuron`: Neuron's size range of the call (neuron_profile.h), or -1.
  const Algorithm& decide(const CollectiveArgs& args, int neuron) const;
  // The fastest of `candidates` (ties: the first), pricing only those whose
  // lower bound does not rule them out.
  const Algorithm* fastest(const std::vector<const Algorithm*>& candidates, const CollectiveArgs& at) const;
  CollectiveArgs priced(const CollectiveArgs& args) const;  // as the model prices them

  std::vector<std::unique_ptr<Algorithm>> algorithms_;  // in preference order for ties
  AlgorithmFilter filter_;
  const Network& network_;
  const RankLayout* layout_;
  Predictor predictor_;
  Pruning pruning_;
  mutable std::mutex mutex_;
  // collective, type, log2(bytes), root, Neuron's size range (or -1)
  using Bucket = std::tuple<Collective, trncclDataType_t, int, int, int>;
  mutable std::map<Bucket, const Algorithm*> decisions_;
};

}  // namespace trnccl::algo
