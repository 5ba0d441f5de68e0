// Hierarchical all-reduce for jobs that span instances: a ring reduce-scatter
// among each instance's L ranks leaves local rank i with part i of the data
// (1/L of it) reduced over its instance; the ranks with local index i, one per
// instance, all-reduce that part with any all-reduce algorithm (the inter
// algorithm, embedded as a sub-schedule); a ring all-gather within each
// instance spreads the result. Only 1/L of the data per rank crosses the slow
// inter-instance network.
//
// Needs the layout's instanceOf, two instances or more, and the same number of
// ranks on every instance; a rank's local index is its place among its
// instance's ranks in comm-rank order, and instances are ordered by id.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "algorithms/algorithm.h"

namespace trnccl::algo {

class Hierarchical : public Algorithm {
 public:
  // Ring inside instances, ring across them.
  Hierarchical();
  // Ring inside instances, `inter` across them (any algorithm with all-reduce).
  explicit Hierarchical(std::unique_ptr<const Algorithm> inter);

  // "hierarchical" with ring across instances, else "hierarchical_<inter>".
  const char* name() const override { return name_.c_str(); }
  std::string whyUnsupported(const CollectiveArgs& args) const override;
  Schedule build(const CollectiveArgs& args) const override;

 private:
  std::unique_ptr<const Algorithm> inter_;
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
