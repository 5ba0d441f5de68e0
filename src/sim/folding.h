// Folding a job of many alike instances onto its first one, so the
// simulator prices 65,536 ranks without building 65,536 schedules.
//
// When every instance has the same NeuronCores in the same rank order, and an
// algorithm treats instances alike (ring, bidirectional ring, 2D torus, RDH
// and the hierarchical ones do: instance i's ranks do what instance 0's do,
// with every peer shifted by i instances), every instance's links carry what
// instance 0's links carry. So the cost model (algo::predict: per phase, the
// slowest rank-channel chain or the most loaded link) over the schedules of
// instance 0's ranks alone, with every route's links moved onto instance 0's
// copies of them, is the cost model over all ranks: a message into instance
// 0 from instance i crosses instance i's NIC out link, which stands for
// instance 0's own outgoing traffic through that NIC. Steps read: four
// instances' (three to check the algorithm treats them alike), one rank's at
// a time, generated step by step where the algorithm can (algo::StepSource):
// memory is one rank's steps at most, and the links' loads.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/cost_model.h"
#include "algorithms/tuner.h"
#include "sim/machine.h"
#include "sim/prediction.h"

namespace trnccl::sim {

struct Folding {
  int instances = 0;
  int ranksPerInstance = 0;
  int linksPerInstance = 0;  // the fabric numbers its links instance by instance
};

// The folding of `machine`, or none when it has one instance or its
// instances differ (a rank order that places them differently).
std::optional<Folding> foldingOf(const Machine& machine);

// `net`'s routes with every link moved onto its copy in instance 0.
std::unique_ptr<algo::Network> foldedNetwork(const algo::Network& net, const Folding& folding);

// The cost model's prediction for `args` (every rank of the job) from
// instance 0's schedules on `folded` (foldedNetwork()), and the bytes each of
// instance 0's links carries (each instance's carry the same). Whether the
// algorithm treats the instances alike is checked on three instances (the
// second, the middle and the last): each of their ranks must do, step by step, what the first instance's rank of the
// same place does, its messages crossing the same folded links (block sizes
// may differ by one element). Throws Error(InvalidArgument) naming the
// algorithm when they do not (RDH on a rank count that is not a power of
// two: its extra ranks are the first ones).
Prediction predictFolded(const algo::Algorithm& algorithm, const algo::CollectiveArgs& args,
                         const algo::Network& folded, const Folding& folding);

// For an algorithm whose instances are not alike (predictFolded() refuses
// it): each probed instance's ranks (the first, second, middle and last
// instance's) priced as if every instance did what they do, and the slowest
// kept. An approximation of pricing every rank, named so in its bound.
Prediction predictFoldedSlowest(const algo::Algorithm& algorithm, const algo::CollectiveArgs& args,
                                const algo::Network& folded, const Folding& folding);

// The folded prices of one machine's calls, each algorithm and call priced
// once: the tuner's candidates, and the rows of a sweep that name an
// algorithm the tuner priced for "auto" (or the other way round). Thread-safe.
class FoldedPricing {
 public:
  // `net` (the machine's network) must outlive this.
  FoldedPricing(const algo::Network& net, const Folding& folding);

  // predictFolded() of `args` as the tuner prices it (no step limit), and its
  // errors.
  Prediction price(const algo::Algorithm& algorithm, const algo::CollectiveArgs& args);
  // For the tuner: price(), or an infinite time for a candidate that treats
  // the instances unlike (it loses; if nothing else can run, pricing it says
  // why). Never below Tuner::lowerBound(): folding only merges links.
  algo::Tuner::Predictor predictor();
  // predictFoldedSlowest() of `args`, not kept: for a row that names an
  // algorithm price() refuses.
  Prediction priceSlowest(const algo::Algorithm& algorithm, const algo::CollectiveArgs& args) const;

 private:
  // algorithm (by name: each call's tuner makes its own), collective,
  // count, type, op, root: what an even call's folded price depends on.
  using Key = std::tuple<std::string, algo::Collective, size_t, trncclDataType_t, trncclRedOp_t, int>;
  std::unique_ptr<algo::Network> folded_;
  Folding folding_;
  std::mutex mutex_;
  std::map<Key, Prediction> priced_;
};

}  // namespace trnccl::sim
