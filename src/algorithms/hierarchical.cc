#include "algorithms/hierarchical.h"

#include <algorithm>
#include <utility>

#include "algorithms/mesh.h"
#include "algorithms/rdh.h"
#include "algorithms/registry.h"
#include "algorithms/ring.h"
#include "base/error.h"

namespace trnccl::algo {
namespace {

// The ranks of each instance: instances in id order, ranks in comm-rank order.
// Instance ids are node numbers (small, not negative): bucketed by id in one
// pass. A 262,144-rank job builds this for every rank it simulates, all on
// one layout, so the last one is kept per thread: comparing the layout costs
// a fraction of bucketing it again.
const std::vector<std::vector<int>>& ranksByInstance(const RankLayout& layout) {
  thread_local std::vector<int> seen;
  thread_local std::vector<std::vector<int>> byId;
  thread_local bool valid = false;
  const auto& ids = layout.instanceOf;
  if (valid && seen == ids) return byId;
  const size_t idCount = ids.empty() ? 0 : static_cast<size_t>(*std::max_element(ids.begin(), ids.end())) + 1;
  byId.assign(idCount, {});
  for (size_t r = 0; r < ids.size(); ++r) byId.at(static_cast<size_t>(ids[r])).push_back(static_cast<int>(r));
  std::erase_if(byId, [](const std::vector<int>& ranks) { return ranks.empty(); });
  seen = ids, valid = true;
  return byId;
}

// The place of `rank` in `instances` (ranksByInstance()): its instance and
// its index there.
std::pair<int, int> placeOf(const std::vector<std::vector<int>>& instances, const RankLayout& layout, int rank) {
  const int id = layout.instanceOf.at(static_cast<size_t>(rank));
  const auto instance = std::lower_bound(
      instances.begin(), instances.end(), id,
      [&](const std::vector<int>& ranks, int i) { return layout.instanceOf[static_cast<size_t>(ranks[0])] < i; });
  const auto at = std::find(instance->begin(), instance->end(), rank);
  return {static_cast<int>(instance - instances.begin()), static_cast<int>(at - instance->begin())};
}

// The all-reduce among the ranks with one local index: one rank per instance.
CollectiveArgs interArgs(const CollectiveArgs& args, int instances, int instance, size_t count, bool inPlace) {
  CollectiveArgs sub = args;
  sub.rank = instance;
  sub.nranks = instances;
  sub.count = count;
  sub.inPlace = inPlace;
  sub.layout = nullptr;
  return sub;
}

}  // namespace

Hierarchical::Hierarchical() : Hierarchical(std::make_unique<Ring>()) {}

Hierarchical::Hierarchical(std::unique_ptr<const Algorithm> inter) : inter_(std::move(inter)) {
  if (!inter_) throwError(trncclInternalError, "hierarchical needs an inter-instance algorithm");
  const std::string across = inter_->name();
  name_ = across == "ring" ? "hierarchical" : "hierarchical_" + across;
}

std::string Hierarchical::whyUnsupported(const CollectiveArgs& args) const {
  if (args.collective != Collective::AllReduce) return name_ + " does not implement " + collectiveName(args.collective);
  if (!args.layout || args.layout->instanceOf.empty()) return name_ + " needs to know which instance each rank is on";
  if (args.layout->instanceOf.size() != static_cast<size_t>(args.nranks))
    return name_ + ": the layout names the instances of " + std::to_string(args.layout->instanceOf.size()) +
           " ranks, not " + std::to_string(args.nranks);
  const auto& instances = ranksByInstance(*args.layout);
  if (instances.size() < 2) return name_ + " needs ranks on two instances or more";
  const size_t local = instances[0].size();
  for (const auto& ranks : instances)
    if (ranks.size() != local)
      return name_ + " needs as many ranks on every instance, but rank " + std::to_string(instances[0][0]) +
             "'s instance has " + std::to_string(local) + " and rank " + std::to_string(ranks[0]) + "'s has " +
             std::to_string(ranks.size());
  const int L = static_cast<int>(local);
  const std::string why = inter_->whyUnsupported(
      interArgs(args, static_cast<int>(instances.size()), 0, blockSize(args.count, L, 0), false));
  return why.empty() ? why : name_ + " across instances: " + why;
}

Schedule Hierarchical::build(const CollectiveArgs& args) const {
  if (const std::string why = whyUnsupported(args); !why.empty()) throwError(trncclInternalError, why);
  const auto& instances = ranksByInstance(*args.layout);
  const int L = static_cast<int>(instances[0].size());
  const std::pair<int, int> place = placeOf(instances, *args.layout, args.rank);
  const int instance = place.first, local = place.second;
  const size_t count = args.count;
  const size_t partBegin = blockBegin(count, L, local), partLength = blockSize(count, L, local);

  Schedule s = singleChannelSchedule(args, name());
  s.phases.clear();
  // Within the instance, block b is part b of the buffer, reduced at local rank b.
  const bool withinInstance = L > 1;
  auto intraRing = [&] {
    return RingPass(RingMembers{instances[instance], local, 1},
                    RingBlocks{1, [count, L](int b) { return blockSize(count, L, b); }}, args.maxStepElements);
  };
  auto parts = [count, L](uint16_t buffer) {
    return PieceAt([=](int b, int) { return Span{buffer, blockBegin(count, L, b)}; });
  };
  if (withinInstance) {
    // Not the last reduction: the part lands in scratch, for the inter all-reduce.
    s.phases.push_back(Phase{{Channel{}}});
    intraRing().reduceScatter(
        parts(kSend),
        [](int, int) {
          return Span{kScratch, 0};
        },
        false, TagRange::slot(0), s.phases.back().channels[0].steps);
    s.scratchElements = partLength;
  }

  Embedding across;
  for (const auto& ranks : instances) across.ranks.push_back(ranks[local]);
  across.send = withinInstance ? Span{kScratch, 0} : Span{kSend, 0};
  across.recv = Span{kRecv, partBegin};
  across.scratch = Span{kScratch, s.scratchElements};
  across.tagOffset = TagRange::slot(2).first;
  across.firstPhase = s.phases.size();
  const int I = static_cast<int>(instances.size());
  embed(inter_->build(interArgs(args, I, instance, partLength, !withinInstance && args.inPlace)), across, s);

  if (withinInstance) {
    s.phases.push_back(Phase{{Channel{}}});
    intraRing().allGather(parts(kRecv), PieceAt(), TagRange::slot(1), s.phases.back().channels[0].steps);
  }
  return s;
}

void embed(const Schedule& sub, const Embedding& where, Schedule& host) {
  auto span = [&](Span s) {
    switch (s.buffer) {
      case kNone:
        return s;
      case kSend:
        return Span{where.send.buffer, where.send.offset + s.offset};
      case kRecv:
        return Span{where.recv.buffer, where.recv.offset + s.offset};
      case kScratch:
        return Span{where.scratch.buffer, where.scratch.offset + s.offset};
      default:
        throwError(trncclInternalError,
                   std::string("an embedded ") + sub.algorithm + " schedule names buffer " + std::to_string(s.buffer));
    }
  };
  auto peer = [&](int p) {
    if (p < 0) return p;
    if (static_cast<size_t>(p) >= where.ranks.size())
      throwError(trncclInternalError, std::string("an embedded ") + sub.algorithm + " schedule names rank " +
                                          std::to_string(p) + " of a group of " + std::to_string(where.ranks.size()));
    return where.ranks[p];
  };
  auto tag = [&](uint32_t t) {
    const uint64_t moved = uint64_t{t} + where.tagOffset;
    if (moved >= kTagSpace)
      throwError(trncclInvalidUsage, std::string("an embedded ") + sub.algorithm + " schedule uses tag " +
                                         std::to_string(t) + ", past the tags left to it; raise the step size");
    return static_cast<uint32_t>(moved);
  };
  if (sub.scratchElements > 0) {
    if (where.scratch.buffer != kScratch)
      throwError(trncclInternalError, "an embedded schedule's scratch must lie in the host's scratch");
    host.scratchElements = std::max(host.scratchElements, where.scratch.offset + sub.scratchElements);
  }
  if (host.phases.size() < where.firstPhase + sub.phases.size())
    host.phases.resize(where.firstPhase + sub.phases.size());
  for (size_t k = 0; k < sub.phases.size(); ++k) {
    for (const Channel& channel : sub.phases[k].channels) {
      Channel moved;
      for (Step step : channel.steps) {
        if (step.recvPeer >= 0) step.recvPeer = peer(step.recvPeer), step.recvTag = tag(step.recvTag);
        if (step.sendPeer >= 0) step.sendPeer = peer(step.sendPeer), step.sendTag = tag(step.sendTag);
        for (Span& src : step.srcs) src = span(src);
        step.dst = span(step.dst);
        moved.steps.push_back(std::move(step));
      }
      host.phases[where.firstPhase + k].channels.push_back(std::move(moved));
    }
  }
}

namespace {

template <class Inter>
std::unique_ptr<Algorithm> hierarchicalOver() {
  return std::make_unique<Hierarchical>(std::make_unique<Inter>());
}

}  // namespace

// Across instances: ring for bandwidth, RDH and mesh for latency.
TRNCCL_REGISTER_ALGORITHMS(hierarchical, {Reach::Instances, make<Hierarchical>},
                           {Reach::Instances, hierarchicalOver<Rdh>}, {Reach::Instances, hierarchicalOver<Mesh>})

}  // namespace trnccl::algo
