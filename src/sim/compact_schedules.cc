#include "sim/compact_schedules.h"

#include "base/datatype.h"

namespace trnccl::sim {

void CompactSchedules::add(const algo::Schedule& s) {
  Rank& r = ranks_.emplace_back();
  r.steps.reserve(s.stepCount());
  r.channelStart.push_back(0);
  const uint64_t elementBytes = typeSize(s.type);
  for (const algo::Phase& phase : s.phases) {
    r.phaseChannel.push_back(r.channelStart.size() - 1);
    r.phases.push_back(phase.channels.size());
    for (const algo::Channel& channel : phase.channels) {
      for (const algo::Step& step : channel.steps) {
        CompactStep c;
        c.recvPeer = step.recvPeer, c.sendPeer = step.sendPeer;
        c.recvTag = step.recvTag, c.sendTag = step.sendTag;
        c.bytes = step.count * elementBytes;
        c.inputs = step.srcs.size() + (step.recvPeer >= 0 ? 1 : 0);
        c.reduce = step.reduce;
        r.steps.push_back(c);
      }
      r.channelStart.push_back(r.steps.size());
    }
  }
  steps_ += r.steps.size();
}

CompactSchedules compact(const std::vector<algo::Schedule>& all) {
  CompactSchedules compacted;
  for (const algo::Schedule& s : all) compacted.add(s);
  return compacted;
}

}  // namespace trnccl::sim
