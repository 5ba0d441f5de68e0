// Chooses the algorithm for each call: among the algorithms the user allows
// (AlgorithmFilter) that can run the call, the one the alpha-beta cost model
// (cost_model.h) predicts fastest on this communicator's network. The
// prediction is made from the candidates' schedules for every rank, so it is
// about exactly what would run. With "neuron" (neuron_profile.h) Neuron's
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

namespace trnccl::algo {

class Tuner {
 public:
  // How a candidate is priced: by default predict() below.
  using Predictor = std::function<Prediction(const Algorithm&, const CollectiveArgs&)>;

  // `network` and `layout` (may be null) must outlive the tuner.
  Tuner(AlgorithmFilter filter, const Network& network, const RankLayout* layout, Predictor predictor = nullptr);
  ~Tuner();

  // Every algorithm there is (registry.h), by name, for the filter and messages.
  static std::vector<std::string> algorithmNames();

  // Thread-safe. Throws Error(InvalidUsage) naming why when no allowed
  // algorithm can run the call.
  const Algorithm& choose(const CollectiveArgs& args) const;
  // The cost model's prediction for running `args` with `algorithm`.
  Prediction predict(const Algorithm& algorithm, const CollectiveArgs& args) const;
  // The choice per size range on `nranks` ranks, e.g.
  // "allreduce: 4 B-32 KiB mesh, 64 KiB-1 GiB torus2d".
  std::string describe(Collective collective, trncclDataType_t type, int nranks) const;

 private:
  // `neuron`: Neuron's size range of the call (neuron_profile.h), or -1.
  const Algorithm& decide(const CollectiveArgs& args, int neuron) const;

  std::vector<std::unique_ptr<Algorithm>> algorithms_;  // in preference order for ties
  AlgorithmFilter filter_;
  const Network& network_;
  const RankLayout* layout_;
  Predictor predictor_;
  mutable std::mutex mutex_;
  // collective, type, log2(bytes), root, Neuron's size range (or -1)
  using Bucket = std::tuple<Collective, trncclDataType_t, int, int, int>;
  mutable std::map<Bucket, const Algorithm*> decisions_;
};

}  // namespace trnccl::algo
