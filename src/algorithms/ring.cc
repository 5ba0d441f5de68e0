#include "algorithms/ring.h"

#include <memory>
#include <utility>

#include "algorithms/registry.h"
#include "base/error.h"

namespace trnccl::algo {

RingCollective ringCollective(const CollectiveArgs& args, size_t begin, size_t length, int direction, TagRange tags) {
  const int n = args.nranks;
  const size_t count = args.count;
  RingMembers ring{allRanks(n), args.rank, direction};
  switch (args.collective) {
    case Collective::AllReduce: {
      const EvenSplit split(length, n);
      auto at = [=](uint16_t buffer) {
        return PieceAt([=](int b, int) { return Span{buffer, begin + split.begin(b)}; });
      };
      return {RingPass(std::move(ring), RingBlocks::even(split), args.maxStepElements),
              {RingPass::Kind::AllReduce, at(kSend), at(kRecv), true, tags}};
    }
    case Collective::ReduceScatter:
    case Collective::AllGather: {
      auto rankBlocks = [=](uint16_t buffer) {
        return PieceAt([=](int b, int) { return Span{buffer, count * b + begin}; });
      };
      RingPass pass(std::move(ring), RingBlocks::even(EvenSplit(length * n, n)), args.maxStepElements);
      if (args.collective == Collective::ReduceScatter)
        return {std::move(pass),
                {RingPass::Kind::ReduceScatter, rankBlocks(kSend),
                 [=](int, int) {
                   return Span{kRecv, begin};
                 },
                 true, tags}};
      return {std::move(pass),
              {RingPass::Kind::AllGather,
               [=](int, int) {
                 return Span{kSend, begin};
               },
               rankBlocks(kRecv), true, tags}};
    }
    default:
      throwError(trncclInternalError, std::string("no ring pass implements ") + collectiveName(args.collective));
  }
}

namespace {

Schedule headerOf(const CollectiveArgs& args, const char* algorithm) {
  Schedule header = singleChannelSchedule(args, algorithm);
  header.phases.clear();
  return header;
}

}  // namespace

RingChannels::RingChannels(const CollectiveArgs& args, const char* algorithm, std::vector<RingCollective> rings)
    : header_(headerOf(args, algorithm)), rings_(std::move(rings)) {
  for (const RingCollective& ring : rings_) lengths_.push_back(ring.pass.steps(ring.job));
}

namespace {

// All-gather-v and reduce-scatter-v: the ring pass with block b as long as
// rank b's block, wherever its displacement puts it. The blocks are shared
// with args, so the pass outlives the call that made it.
RingCollective unevenRing(const CollectiveArgs& args) {
  const std::shared_ptr<const VarCounts> v = args.v;
  const bool gather = args.collective == Collective::AllGatherV;
  const auto lengths = [v, gather](int b) { return (gather ? v->recvCounts : v->sendCounts)[b]; };
  const PieceAt blocks = [v, gather](int b, int) {
    return Span{gather ? kRecv : kSend, (gather ? v->recvDispls : v->sendDispls)[b]};
  };
  const PieceAt own = [gather](int, int) { return Span{gather ? kSend : kRecv, 0}; };
  RingPass pass(RingMembers{allRanks(args.nranks), args.rank, 1}, RingBlocks{1, lengths}, args.maxStepElements);
  if (gather) return {std::move(pass), {RingPass::Kind::AllGather, own, blocks, true, TagRange::slot(0)}};
  return {std::move(pass), {RingPass::Kind::ReduceScatter, blocks, own, true, TagRange::slot(0)}};
}

// Broadcast and reduce: one step per rank, a chain along the ring that relays
// slice by slice; `pos` is the rank's place in the chain.
Step chainLink(const CollectiveArgs& args, int pos) {
  const int n = args.nranks, r = args.rank;
  Step c;
  if (pos != 0) c.recvPeer = mod(r - 1, n);
  if (pos != n - 1) c.sendPeer = mod(r + 1, n);
  c.count = args.count;
  return c;
}

bool isChain(Collective c) { return c == Collective::Broadcast || c == Collective::Reduce; }

}  // namespace

std::string Ring::whyUnsupported(const CollectiveArgs& args) const {
  switch (args.collective) {
    case Collective::AllReduce:
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::Broadcast:
    case Collective::Reduce:
    case Collective::AllGatherV:
    case Collective::ReduceScatterV:
      return {};
    default:
      return std::string("ring does not implement ") + collectiveName(args.collective);
  }
}

std::unique_ptr<StepSource> Ring::steps(const CollectiveArgs& args) const {
  if (args.nranks == 1 || isChain(args.collective)) return Algorithm::steps(args);  // one step a rank: built
  std::vector<RingCollective> rings;
  rings.push_back(isVariable(args.collective) ? unevenRing(args)
                                              : ringCollective(args, 0, args.count, 1, TagRange::slot(0)));
  return std::make_unique<RingChannels>(args, name(), std::move(rings));
}

Schedule Ring::build(const CollectiveArgs& args) const {
  if (args.nranks == 1) return localCopySchedule(args, name());
  if (!isChain(args.collective)) return materialise(*steps(args));
  Schedule s = singleChannelSchedule(args, name());
  std::vector<Step>& steps = s.phases[0].channels[0].steps;
  if (args.collective == Collective::Broadcast) {
    // From the root along the ring; the last rank only receives.
    Step c = chainLink(args, mod(args.rank - args.root, args.nranks));
    if (c.recvPeer < 0) c.srcs = {Span{kSend, 0}};
    c.dst = Span{kRecv, 0};
    steps.push_back(c);
  } else {
    // Reduce starts after the root and ends at it.
    Step c = chainLink(args, mod(args.rank - args.root - 1, args.nranks));
    c.reduce = c.recvPeer >= 0;
    c.final = c.sendPeer < 0;
    c.srcs = {Span{kSend, 0}};
    if (c.final) c.dst = Span{kRecv, 0};
    steps.push_back(c);
  }
  return s;
}

TRNCCL_REGISTER_ALGORITHMS(ring, {Reach::AnyRanks, make<Ring>, 0})

}  // namespace trnccl::algo
