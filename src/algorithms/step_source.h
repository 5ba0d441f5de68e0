// One rank's schedule, step by step, generated on demand: what the simulator
// reads instead of a materialised Schedule, so pricing a 65,536-rank ring
// allocates nothing per step and an engine holds only the steps in flight.
//
// An algorithm describes its steps once: either as a StepSource (the ring
// family: each step computed from its index, no state between steps), from
// which its Schedule is materialised, or as a built Schedule, which a
// ScheduleSource reads step by step. Both give the same steps.
#pragma once

#include <cstddef>
#include <optional>

#include "algorithms/schedule.h"

namespace trnccl::algo {

// Steps k .. k + steps - 1 of a channel that the cost model prices alike
// (StepSource::run): the same peers, reduction and number of sources as
// step k; their counts lie in [minCount, maxCount] and sum to totalCount.
struct StepRun {
  size_t steps = 1;
  size_t minCount = 0, maxCount = 0, totalCount = 0;
};

class StepSource {
 public:
  virtual ~StepSource() = default;

  // The schedule's fields (collective, rank, type, ...). Read the steps
  // through the calls below: a generator's header has no phases.
  virtual const Schedule& header() const = 0;
  virtual size_t phases() const = 0;
  virtual size_t channels(size_t phase) const = 0;
  virtual size_t length(size_t phase, size_t channel) const = 0;
  // Step k of a channel, in any order. `out`'s sources keep their capacity,
  // so a reused Step allocates nothing once it has held a step.
  virtual void step(size_t phase, size_t channel, size_t k, Step& out) const = 0;
  // Step k into `out`, and the run of steps from k that price alike with it
  // (by default step k alone): a ring's 65,536-rank pass is a few runs.
  virtual StepRun run(size_t phase, size_t channel, size_t k, Step& out) const {
    step(phase, channel, k, out);
    return StepRun{1, out.count, out.count, out.count};
  }
  // Whether the steps are held in memory (a built Schedule) rather than generated.
  virtual bool materialised() const { return false; }
};

// A built schedule, read step by step: its own, or one that outlives it.
class ScheduleSource : public StepSource {
 public:
  explicit ScheduleSource(Schedule schedule);
  explicit ScheduleSource(const Schedule* schedule);
  const Schedule& header() const override { return *schedule_; }
  size_t phases() const override { return schedule_->phases.size(); }
  size_t channels(size_t phase) const override { return schedule_->phases[phase].channels.size(); }
  size_t length(size_t phase, size_t channel) const override {
    return schedule_->phases[phase].channels[channel].steps.size();
  }
  void step(size_t phase, size_t channel, size_t k, Step& out) const override;
  bool materialised() const override { return true; }

 private:
  std::optional<Schedule> owned_;
  const Schedule* schedule_;
};

// Every step of `source`, in a Schedule.
Schedule materialise(const StepSource& source);

}  // namespace trnccl::algo
