#include "algorithms/step_source.h"

#include <utility>

namespace trnccl::algo {
ScheduleSource::ScheduleSource(Schedule schedule) : owned_(std::move(schedule)), schedule_(&*owned_) {}

ScheduleSource::ScheduleSource(const Schedule* schedule) : schedule_(schedule) {}

void ScheduleSource::step(size_t phase, size_t channel, size_t k, Step& out) const {
  const Step& s = schedule_->phases[phase].channels[channel].steps[k];
  out.recvPeer = s.recvPeer, out.sendPeer = s.sendPeer;
  out.reduce = s.reduce, out.final = s.final;
  out.srcs.assign(s.srcs.begin(), s.srcs.end());  // into the capacity out already has
  out.dst = s.dst;
  out.count = s.count;
  out.recvTag = s.recvTag, out.sendTag = s.sendTag;
}

Schedule materialise(const StepSource& source) {
  Schedule s = source.header();
  s.phases.assign(source.phases(), Phase{});
  for (size_t p = 0; p < s.phases.size(); ++p) {
    s.phases[p].channels.resize(source.channels(p));
    for (size_t c = 0; c < s.phases[p].channels.size(); ++c) {
      std::vector<Step>& steps = s.phases[p].channels[c].steps;
      steps.resize(source.length(p, c));
      for (size_t k = 0; k < steps.size(); ++k) source.step(p, c, k, steps[k]);
    }
  }
  return s;
}

}  // namespace trnccl::algo
