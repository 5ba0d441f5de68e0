// Hierarchical collectives over groups of ranks. All-reduce: a ring
// reduce-scatter among each group's L ranks leaves local rank i with part i of
// the data (1/L of it) reduced over its group; the ranks with local index i,
// one per group, all-reduce that part with any all-reduce algorithm (the inter
// algorithm, embedded as a sub-schedule); a ring all-gather within each group
// spreads the result. Only 1/L of the data per rank crosses between groups.
// All-gather runs the inter algorithm first (each rank's block once across
// the groups), then the ring inside; reduce-scatter the ring inside first,
// then the inter algorithm: as Neuron's pages order them, the smaller
// traffic across.
//
// The groups are either
// - instances (jobs that span instances: only 1/L crosses the slow network).
//   Needs the layout's instanceOf, two instances or more, and the same number
//   of ranks on every instance; a rank's local index is its place among its
//   instance's ranks in comm-rank order, and instances are ordered by id; or
// - chips (one instance whose chips form a torus, with several NeuronCores
//   each): what Neuron's runtime calls RDH on a torus of multi-core chips
//   (its "Intra-node collective communications" page). Needs the layout's
//   grid and two chips or more; the local index is the core's place on its
//   chip. Chips are ordered so that the X x Y torus reads as a hypercube: a
//   ring of 2 or 4 chips in Gray-code order, so every partner at a power-of-two
//   distance in that order (RDH's partners) is one NeuronLink hop away.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/algorithm.h"

namespace trnccl::algo {

// What a hierarchical algorithm's groups are.
enum class Grouping { Instances, Chips };

class Hierarchical : public Algorithm {
 public:
  // Ring inside instances, ring across them.
  Hierarchical();
  // Ring inside each group, `inter` across them (any algorithm with all-reduce).
  explicit Hierarchical(std::unique_ptr<const Algorithm> inter, Grouping grouping = Grouping::Instances);

  // Across instances: "hierarchical" with ring, else "hierarchical_<inter>";
  // across chips: "chip_<inter>".
  const char* name() const override { return name_.c_str(); }
  std::string whyUnsupported(const CollectiveArgs& args) const override;
  Schedule build(const CollectiveArgs& args) const override;

 private:
  Schedule allGather(const CollectiveArgs& args) const;
  Schedule reduceScatter(const CollectiveArgs& args) const;
  // Appends the inter algorithm's call on `count` elements among the ranks of
  // this one's local index, its buffers at `send` and `recv`, its scratch past s's.
  void embedAcross(const CollectiveArgs& args, const std::vector<std::vector<int>>& all, int group, int local,
                   size_t count, bool inPlace, Span send, Span recv, Schedule& s) const;
  std::string whyNoGroups(const CollectiveArgs& args) const;
  // The groups, in the order the inter algorithm numbers them, each group's ranks by local index.
  const std::vector<std::vector<int>>& groups(const CollectiveArgs& args) const;
  // args.rank's group and local index.
  std::pair<int, int> placeOf(const std::vector<std::vector<int>>& groups, const CollectiveArgs& args) const;

  std::unique_ptr<const Algorithm> inter_;
  Grouping grouping_;
  std::string name_;
};

// Where a schedule built for a sub-group runs inside a host schedule.
struct Embedding {
  std::vector<int> ranks;    // the sub-group's rank i is host rank ranks[i]
  Span send, recv, scratch;  // where the sub-schedule's send, receive and scratch buffers start
  uint32_t tagOffset = 0;    // added to every tag, past the host's own tags
  size_t firstPhase = 0;     // the host phase the sub-schedule's first phase runs in
};

// Adds the channels of sub's phase k to host phase firstPhase + k (appending
// phases as needed), with peers, spans and tags moved as `where` says, and
// grows host's scratch to hold sub's. A final step of sub divides avg by the
// host's rank count: the sub-schedule must do the host's last reduction.
// Throws Error(InternalError) for a sub-schedule naming other buffers or
// ranks, Error(InvalidUsage) when its tags do not fit past tagOffset.
void embed(const Schedule& sub, const Embedding& where, Schedule& host);

}  // namespace trnccl::algo
