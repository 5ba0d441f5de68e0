#include "sim/compact_schedules.h"

#include <utility>

#include "base/datatype.h"

namespace trnccl::sim {
namespace {

CompactStep compacted(const algo::Step& step, uint64_t elementBytes) {
  CompactStep c;
  c.recvPeer = step.recvPeer, c.sendPeer = step.sendPeer;
  c.recvTag = step.recvTag, c.sendTag = step.sendTag;
  c.bytes = step.count * elementBytes;
  c.inputs = step.srcs.size() + (step.recvPeer >= 0 ? 1 : 0);
  c.reduce = step.reduce;
  return c;
}

}  // namespace

CompactSchedules::Rank& CompactSchedules::addShape(const algo::StepSource& source) {
  Rank& r = ranks_.emplace_back();
  r.elementBytes = typeSize(source.header().type);
  r.channelStart.push_back(0);
  for (size_t p = 0; p < source.phases(); ++p) {
    r.phaseChannel.push_back(r.channelStart.size() - 1);
    r.phases.push_back(source.channels(p));
    for (size_t c = 0; c < source.channels(p); ++c)
      r.channelStart.push_back(r.channelStart.back() + source.length(p, c));
  }
  steps_ += r.channelStart.back();
  return r;
}

void CompactSchedules::add(const algo::Schedule& schedule) { add(std::make_unique<algo::ScheduleSource>(&schedule)); }

void CompactSchedules::add(std::unique_ptr<algo::StepSource> source) {
  Rank& r = addShape(*source);
  if (!source->materialised()) {
    r.source = std::move(source);
    return;
  }
  // Built steps take 24 bytes each here; the Schedule goes.
  r.steps.reserve(r.channelStart.back());
  for (size_t p = 0; p < source->phases(); ++p)
    for (size_t c = 0; c < source->channels(p); ++c)
      for (size_t k = 0; k < source->length(p, c); ++k) {
        source->step(p, c, k, scratch_);
        r.steps.push_back(compacted(scratch_, r.elementBytes));
      }
}

CompactStep CompactSchedules::step(int rank, size_t phase, size_t channel, size_t k) const {
  const Rank& r = ranks_[rank];
  const size_t c = firstChannel(rank, phase) + channel;
  if (r.source == nullptr) return r.steps[r.channelStart[c] + k];
  r.source->step(phase, channel, k, scratch_);
  return compacted(scratch_, r.elementBytes);
}

CompactSchedules compact(const std::vector<algo::Schedule>& all) {
  CompactSchedules compacted;
  for (const algo::Schedule& s : all) compacted.add(s);
  return compacted;
}

}  // namespace trnccl::sim
