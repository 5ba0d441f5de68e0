// Ring algorithms (NCCL's): all-reduce as a reduce-scatter then an all-gather
// around the ring, all-gather, reduce-scatter (and their uneven -v forms: each
// rank's block as long as its count), and broadcast / reduce as
// chains along the ring. Bandwidth-optimal; every step talks to ring
// neighbours only, and slices pipeline through each step.
#pragma once

#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/ring_pass.h"

namespace trnccl::algo {

class Ring : public Algorithm {
 public:
  const char* name() const override { return "ring"; }
  std::string whyUnsupported(const CollectiveArgs& args) const override;
  Schedule build(const CollectiveArgs& args) const override;
  std::unique_ptr<StepSource> steps(const CollectiveArgs& args) const override;
};

// A ring pass and what it does.
struct RingCollective {
  RingPass pass;
  RingPass::Job job;
};

// The ring all-reduce, all-gather or reduce-scatter over ranks 0..nranks-1
// in `direction` (+1: each rank sends to rank + 1) that moves only the
// elements [begin, begin + length): of the buffer for all-reduce, of every
// rank's block for all-gather and reduce-scatter.
RingCollective ringCollective(const CollectiveArgs& args, size_t begin, size_t length, int direction, TagRange tags);

// One phase whose channel c is the pass rings[c]: the ring family's steps,
// each generated from its index when read. The header is the schedule's
// (singleChannelSchedule's fields; its phases are ignored).
class RingChannels : public StepSource {
 public:
  RingChannels(const CollectiveArgs& args, const char* algorithm, std::vector<RingCollective> rings);
  const Schedule& header() const override { return header_; }
  size_t phases() const override { return 1; }
  size_t channels(size_t) const override { return rings_.size(); }
  size_t length(size_t, size_t channel) const override { return lengths_[channel]; }
  void step(size_t, size_t channel, size_t k, Step& out) const override {
    rings_[channel].pass.step(rings_[channel].job, k, out);
  }
  StepRun run(size_t, size_t channel, size_t k, Step& out) const override {
    return rings_[channel].pass.run(rings_[channel].job, k, out);
  }

 private:
  Schedule header_;
  std::vector<RingCollective> rings_;
  std::vector<size_t> lengths_;
};

}  // namespace trnccl::algo
