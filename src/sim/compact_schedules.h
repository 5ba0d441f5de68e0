// Every rank's schedule of one call, reduced to what the event and
// analytical engines read: 24 bytes a step instead of a Step and its
// sources, so a 4,096-rank ring of 8,190 steps a rank fits in well under a
// gigabyte. Built one rank's Schedule at a time, each dropped once added.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "algorithms/schedule.h"

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
  // Rank `ranks()`'s schedule: add them in rank order.
  void add(const algo::Schedule& schedule);

  int ranks() const { return static_cast<int>(ranks_.size()); }
  size_t stepCount() const { return steps_; }
  size_t phases(int rank) const { return ranks_[rank].phases.size(); }
  size_t channels(int rank, size_t phase) const { return ranks_[rank].phases[phase]; }
  // The steps of one channel: channelSteps(...)[k], k < channelLength(...).
  const CompactStep* channelSteps(int rank, size_t phase, size_t channel) const {
    return ranks_[rank].steps.data() + ranks_[rank].channelStart[firstChannel(rank, phase) + channel];
  }
  size_t channelLength(int rank, size_t phase, size_t channel) const {
    const size_t c = firstChannel(rank, phase) + channel;
    return ranks_[rank].channelStart[c + 1] - ranks_[rank].channelStart[c];
  }

 private:
  struct Rank {
    std::vector<size_t> phases;        // channels per phase
    std::vector<size_t> phaseChannel;  // the index of each phase's first channel
    std::vector<size_t> channelStart;  // into steps, one more than there are channels
    std::vector<CompactStep> steps;
  };
  size_t firstChannel(int rank, size_t phase) const { return ranks_[rank].phaseChannel[phase]; }

  std::vector<Rank> ranks_;
  size_t steps_ = 0;
};

// Every schedule of `all`, compacted.
CompactSchedules compact(const std::vector<algo::Schedule>& all);

}  // namespace trnccl::sim
