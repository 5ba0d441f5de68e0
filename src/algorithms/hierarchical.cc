#include "algorithms/hierarchical.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "algorithms/mesh.h"
#include "algorithms/rank_grid.h"
#include "algorithms/rdh.h"
#include "algorithms/registry.h"
#include "algorithms/ring.h"
#include "base/datatype.h"
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

// A chip's place along a ring of `length` chips, in an order where the chips
// a power of two apart are neighbours: Gray code (position ^ position / 2)
// when the length is a power of two (on a ring of 4: 0, 1, 3, 2), so the
// ring reads as a hypercube; else the position.
int hypercubeIndex(int position, int length) {
  return std::has_single_bit(static_cast<unsigned>(length)) ? position ^ (position >> 1) : position;
}

// The ranks of each chip of the layout's grid, its cores in order; the chip at
// (x, y) of the X x Y chip torus is group hypercubeIndex(x) + X hypercubeIndex(y).
// Rebuilt per call: one instance holds a few hundred ranks at most.
const std::vector<std::vector<int>>& ranksByChip(const CollectiveArgs& args) {
  thread_local std::vector<std::vector<int>> chips;
  const RankGrid grid = gridFor(args);
  const int k = args.layout->ranksPerChip, width = grid.width / k, height = grid.height;
  chips.assign(static_cast<size_t>(width) * height, {});
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      auto& cores = chips[hypercubeIndex(x, width) + static_cast<size_t>(width) * hypercubeIndex(y, height)];
      for (int j = 0; j < k; ++j) cores.push_back(grid.at(x * k + j, y));
    }
  return chips;
}

// The part of a group's ring from which it goes both ways round. Each way
// issues as many messages as the one-way ring, with half the bytes: that
// pays once half a part takes longer on a link than issuing a message
// (NeuronLink 48 GB/s, 1-2 us a message: 78 KB for 1.6 us, so parts of
// 156 KB), and costs time below it (trnccl-sim at 2 MiB over 64 ranks of
// trn1.32xlarge:2: 566 us both ways against 422 one way).
constexpr size_t kBothWaysBytes = 256 * 1024;

// The first tag slot of the algorithm across the groups: the passes inside
// take the slots before it.
constexpr int kAcrossSlot = 4;

// Piece g of a block in scratch at g x count: the blocks the groups exchange.
PieceAt scratchByGroup(size_t count) {
  return [count](int, int g) { return Span{kScratch, count * g}; };
}

// The stage inside the group of all-gather and reduce-scatter, into `phase`:
// a ring whose block b is the blocks of the ranks of local index b, one
// piece per group (`pass` appends its steps); in a group of one, each piece
// copied from `from` to `to`.
template <class Pass>
void withinGroup(const std::vector<std::vector<int>>& all, int group, int local, size_t maxStep, size_t count,
                 Phase& phase, const Pass& pass, const PieceAt& from, const PieceAt& to) {
  const int G = static_cast<int>(all.size());
  std::vector<Step>& steps = phase.channels[0].steps;
  if (all[group].size() > 1) {
    pass(RingPass(RingMembers{all[group], local, 1}, RingBlocks{G, [count](int) { return count; }}, maxStep), steps);
    return;
  }
  for (int g = 0; g < G; ++g) steps.push_back(localCopy(from(0, g), to(0, g), count));
}

// The call among the ranks with one local index: one rank per group.
CollectiveArgs interArgs(const CollectiveArgs& args, int groups, int group, size_t count, bool inPlace) {
  CollectiveArgs sub = args;
  sub.rank = group;
  sub.nranks = groups;
  sub.count = count;
  sub.inPlace = inPlace;
  sub.layout = nullptr;
  return sub;
}

}  // namespace

Hierarchical::Hierarchical() : Hierarchical(std::make_unique<Ring>()) {}

Hierarchical::Hierarchical(std::unique_ptr<const Algorithm> inter, Grouping grouping)
    : inter_(std::move(inter)), grouping_(grouping) {
  if (!inter_) throwError(trncclInternalError, "hierarchical needs an algorithm between its groups");
  const std::string across = inter_->name();
  name_ = grouping_ == Grouping::Chips ? "chip_" + across
          : across == "ring"           ? "hierarchical"
                                       : "hierarchical_" + across;
}

std::string Hierarchical::whyNoGroups(const CollectiveArgs& args) const {
  if (grouping_ == Grouping::Chips) {
    if (!args.layout || !args.layout->hasGrid()) return name_ + " needs the grid of the chips the ranks are on";
    if (std::string why = whyBadGrid(*args.layout, args.nranks); !why.empty()) return name_ + ": " + why;
    if (args.layout->gridWidth == args.layout->ranksPerChip && args.layout->gridHeight == 1)
      return name_ + " needs ranks on two chips or more";
    return {};
  }
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
  return {};
}

const std::vector<std::vector<int>>& Hierarchical::groups(const CollectiveArgs& args) const {
  return grouping_ == Grouping::Chips ? ranksByChip(args) : ranksByInstance(*args.layout);
}

std::pair<int, int> Hierarchical::placeOf(const std::vector<std::vector<int>>& groups,
                                          const CollectiveArgs& args) const {
  if (grouping_ == Grouping::Instances) return algo::placeOf(groups, *args.layout, args.rank);
  for (size_t g = 0; g < groups.size(); ++g)
    if (const auto at = std::find(groups[g].begin(), groups[g].end(), args.rank); at != groups[g].end())
      return {static_cast<int>(g), static_cast<int>(at - groups[g].begin())};
  throwError(trncclInternalError, name_ + ": rank " + std::to_string(args.rank) + " is on no chip of the grid");
}

std::string Hierarchical::whyUnsupported(const CollectiveArgs& args) const {
  if (args.collective != Collective::AllReduce && args.collective != Collective::AllGather &&
      args.collective != Collective::ReduceScatter)
    return name_ + " does not implement " + collectiveName(args.collective);
  if (std::string why = whyNoGroups(args); !why.empty()) return why;
  const auto& all = groups(args);
  const int L = static_cast<int>(all[0].size());
  // All-reduce's groups all-reduce a part of the buffer; the others' move whole blocks.
  const size_t count = args.collective == Collective::AllReduce ? blockSize(args.count, L, 0) : args.count;
  const std::string why = inter_->whyUnsupported(interArgs(args, static_cast<int>(all.size()), 0, count, false));
  return why.empty() ? why : name_ + (grouping_ == Grouping::Chips ? " across chips: " : " across instances: ") + why;
}

Schedule Hierarchical::build(const CollectiveArgs& args) const {
  if (const std::string why = whyUnsupported(args); !why.empty()) throwError(trncclInternalError, why);
  if (args.collective == Collective::AllGather) return allGather(args);
  if (args.collective == Collective::ReduceScatter) return reduceScatter(args);
  const auto& all = groups(args);
  const int L = static_cast<int>(all[0].size());
  const std::pair<int, int> place = placeOf(all, args);
  const int group = place.first, local = place.second;
  const size_t count = args.count;
  const size_t partBegin = blockBegin(count, L, local), partLength = blockSize(count, L, local);

  Schedule s = singleChannelSchedule(args, name());
  s.phases.clear();
  // Within the group, part b of the buffer is reduced at local rank b. A
  // group of more than two ranks with parts of kBothWaysBytes or more goes
  // round its ring both ways, each way on a channel of its own with a half
  // of every part (the first half forwards, the second backwards): every
  // link then carries data in both directions, as Neuron's KangaRing does
  // inside an instance, and local rank b still ends with the whole of part
  // b, for the algorithm across the groups.
  const bool withinGroup = L > 1;
  const bool largeParts = count / static_cast<size_t>(L) * typeSize(args.type) >= kBothWaysBytes;
  const int ways = L > 2 && largeParts ? 2 : 1;
  // Where way's share of part b starts, and its length.
  auto share = [count, L, ways](int b, int way) {
    const size_t begin = blockBegin(count, L, b), length = blockSize(count, L, b), first = (length + 1) / 2;
    if (ways == 1) return std::pair{begin, length};
    return way == 0 ? std::pair{begin, first} : std::pair{begin + first, length - first};
  };
  auto intraRing = [&](int way) {
    return RingPass(RingMembers{all[group], local, way == 0 ? 1 : -1},
                    RingBlocks{1, [share, way](int b) { return share(b, way).second; }}, args.maxStepElements);
  };
  auto shares = [share](uint16_t buffer, int way) {
    return PieceAt([=](int b, int) { return Span{buffer, share(b, way).first}; });
  };
  // Tag slots: reduce-scatter's ways take 0 and 1, all-gather's 2 and 3,
  // the algorithm across the groups kAcrossSlot on.
  if (withinGroup) {
    // Not the last reduction: the part lands in scratch, for the algorithm across.
    Phase& phase = s.phases.emplace_back(Phase{std::vector<Channel>(static_cast<size_t>(ways))});
    for (int way = 0; way < ways; ++way) {
      const size_t offset = share(local, way).first - partBegin;
      intraRing(way).reduceScatter(
          shares(kSend, way),
          [offset](int, int) {
            return Span{kScratch, offset};
          },
          false, TagRange::slot(way), phase.channels[static_cast<size_t>(way)].steps);
    }
    s.scratchElements = partLength;
  }

  embedAcross(args, all, group, local, partLength, !withinGroup && args.inPlace,
              withinGroup ? Span{kScratch, 0} : Span{kSend, 0}, Span{kRecv, partBegin}, s);

  if (withinGroup) {
    Phase& phase = s.phases.emplace_back(Phase{std::vector<Channel>(static_cast<size_t>(ways))});
    for (int way = 0; way < ways; ++way)
      intraRing(way).allGather(shares(kRecv, way), PieceAt(), TagRange::slot(2 + way),
                               phase.channels[static_cast<size_t>(way)].steps);
  }
  return s;
}

// All-gather, as Neuron's hierarchical one: the ranks of one local index
// all-gather their blocks across the groups first (into scratch, group by
// group), where each message is one block; then a ring inside each group
// passes every rank's G blocks on, each piece to its owner's place.
Schedule Hierarchical::allGather(const CollectiveArgs& args) const {
  const auto& all = groups(args);
  const auto [group, local] = placeOf(all, args);
  Schedule s = singleChannelSchedule(args, name());
  s.phases.clear();
  s.scratchElements = args.count * all.size();  // block of group g at g x count
  embedAcross(args, all, group, local, args.count, false, Span{kSend, 0}, Span{kScratch, 0}, s);
  const size_t count = args.count;
  const PieceAt owners = [&all, count](int b, int g) { return Span{kRecv, count * all[g][b]}; };
  withinGroup(
      all, group, local, args.maxStepElements, count, s.phases.emplace_back(Phase{{Channel{}}}),
      [&](const RingPass& ring, std::vector<Step>& steps) {
        ring.allGather(owners, scratchByGroup(count), TagRange::slot(0), steps);
      },
      scratchByGroup(count), owners);
  return s;
}

// Reduce-scatter, as Neuron's hierarchical one: a ring inside each group
// reduces, for each local index, the G blocks of the ranks with that index
// (into scratch, group by group); then those ranks reduce-scatter them
// across the groups, each message one block.
Schedule Hierarchical::reduceScatter(const CollectiveArgs& args) const {
  const auto& all = groups(args);
  const auto [group, local] = placeOf(all, args);
  Schedule s = singleChannelSchedule(args, name());
  s.phases.clear();
  s.scratchElements = args.count * all.size();  // block of group g's rank of this local index at g x count
  const size_t count = args.count;
  const PieceAt owners = [&all, count](int b, int g) { return Span{kSend, count * all[g][b]}; };
  withinGroup(
      all, group, local, args.maxStepElements, count, s.phases.emplace_back(Phase{{Channel{}}}),
      [&](const RingPass& ring, std::vector<Step>& steps) {
        ring.reduceScatter(owners, scratchByGroup(count), false, TagRange::slot(0), steps);
      },
      owners, scratchByGroup(count));
  embedAcross(args, all, group, local, count, false, Span{kScratch, 0}, Span{kRecv, 0}, s);
  return s;
}

void Hierarchical::embedAcross(const CollectiveArgs& args, const std::vector<std::vector<int>>& all, int group,
                               int local, size_t count, bool inPlace, Span send, Span recv, Schedule& s) const {
  Embedding across;
  for (const auto& ranks : all) across.ranks.push_back(ranks[local]);
  across.send = send;
  across.recv = recv;
  across.scratch = Span{kScratch, s.scratchElements};
  across.tagOffset = TagRange::slot(kAcrossSlot).first;
  across.firstPhase = s.phases.size();
  embed(inter_->build(interArgs(args, static_cast<int>(all.size()), group, count, inPlace)), across, s);
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

std::unique_ptr<Algorithm> rdhAcrossChips() {
  return std::make_unique<Hierarchical>(std::make_unique<Rdh>(), Grouping::Chips);
}

}  // namespace

// Across instances: ring for bandwidth, RDH and mesh for latency. Across the
// chips of one instance: RDH, as Neuron plays it for mid sizes.
TRNCCL_REGISTER_ALGORITHMS(hierarchical, {Reach::Instances, make<Hierarchical>, 6},
                           {Reach::Instances, hierarchicalOver<Rdh>, 7}, {Reach::Instances, hierarchicalOver<Mesh>, 8},
                           {Reach::Chips, rdhAcrossChips, 9})

}  // namespace trnccl::algo
