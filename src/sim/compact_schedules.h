// Every rank's steps of one call, as the event and analytical engines read
// them: 24 bytes a step (CompactStep). A rank whose algorithm generates its
// steps (algo::StepSource) keeps only its generator: each step is generated
// when an engine reads it, so a 4,096-rank ring's engines hold the steps in
// flight, not 8,190 a rank. A rank whose steps come built is compacted, one
// Schedule at a time, each dropped once added.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/schedule.h"
#include "algorithms/step_source.h"

namespace trnccl::sim {

struct CompactStep {
  int32_t recvPeer = -1, sendPeer = -1;
  uint32_t recvTag = 0, sendTag = 0;
  uint64_t bytes : 47 = 0;   // the message's (and the reduction's) bytes
  uint64_t inputs : 16 = 0;  // reduced inputs: sources, and the received one (the engines take 4,096 ranks)
  uint64_t reduce : 1 = 0;
};

class CompactSchedules {
 public:
  // Rank `ranks()`'s steps: add them in rank order.
  void add(const algo::Schedule& schedule);
  void add(std::unique_ptr<algo::StepSource> source);

  int ranks() const { return static_cast<int>(ranks_.size()); }
  size_t stepCount() const { return steps_; }
  size_t phases(int rank) const { return ranks_[rank].phases.size(); }
  size_t channels(int rank, size_t phase) const { return ranks_[rank].phases[phase]; }
  size_t channelLength(int rank, size_t phase, size_t channel) const {
    const size_t c = firstChannel(rank, phase) + channel;
    return ranks_[rank].channelStart[c + 1] - ranks_[rank].channelStart[c];
  }
  // Step k < channelLength(...) of one channel. Not thread-safe: a generated
  // step passes through one scratch Step.
  CompactStep step(int rank, size_t phase, size_t channel, size_t k) const;

 private:
  struct Rank {
    std::vector<size_t> phases;                // channels per phase
    std::vector<size_t> phaseChannel;          // the index of each phase's first channel
    std::vector<size_t> channelStart;          // step numbers, one more than there are channels
    std::vector<CompactStep> steps;            // built ranks' steps
    std::unique_ptr<algo::StepSource> source;  // or the generator of a rank's steps
    uint64_t elementBytes = 0;
  };
  // The shape of `source`'s steps, into a new rank.
  Rank& addShape(const algo::StepSource& source);
  size_t firstChannel(int rank, size_t phase) const { return ranks_[rank].phaseChannel[phase]; }

  std::vector<Rank> ranks_;
  size_t steps_ = 0;
  mutable algo::Step scratch_;
};

// Every schedule of `all`, compacted.
CompactSchedules compact(const std::vector<algo::Schedule>& all);

}  // namespace trnccl::sim
