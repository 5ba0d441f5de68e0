#include "algorithms/ring.h"

#include "algorithms/registry.h"
#include "base/error.h"

namespace trnccl::algo {
namespace {

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

}  // namespace

void appendRingCollective(const CollectiveArgs& args, size_t begin, size_t length, int direction, TagRange tags,
                          std::vector<Step>& steps) {
  const int n = args.nranks;
  const size_t count = args.count;
  const RingMembers ring{allRanks(n), args.rank, direction};
  switch (args.collective) {
    case Collective::AllReduce: {
      auto at = [=](uint16_t buffer) {
        return PieceAt([=](int b, int) { return Span{buffer, begin + blockBegin(length, n, b)}; });
      };
      RingPass(ring, RingBlocks{1, [=](int b) { return blockSize(length, n, b); }}, args.maxStepElements)
          .allReduce(at(kSend), at(kRecv), tags, steps);
      return;
    }
    case Collective::ReduceScatter:
    case Collective::AllGather: {
      auto rankBlocks = [=](uint16_t buffer) {
        return PieceAt([=](int b, int) { return Span{buffer, count * b + begin}; });
      };
      const RingPass pass(ring, RingBlocks{1, [=](int) { return length; }}, args.maxStepElements);
      if (args.collective == Collective::ReduceScatter)
        pass.reduceScatter(
            rankBlocks(kSend),
            [=](int, int) {
              return Span{kRecv, begin};
            },
            true, tags, steps);
      else
        pass.allGather(
            rankBlocks(kRecv),
            [=](int, int) {
              return Span{kSend, begin};
            },
            tags, steps);
      return;
    }
    default:
      throwError(trncclInternalError, std::string("no ring pass implements ") + collectiveName(args.collective));
  }
}

namespace {

// All-gather-v and reduce-scatter-v: the ring pass with block b as long as
// rank b's block, wherever its displacement puts it.
void appendUnevenRing(const CollectiveArgs& args, std::vector<Step>& steps) {
  const VarCounts& v = *args.v;
  const bool gather = args.collective == Collective::AllGatherV;
  const std::vector<size_t>& lengths = gather ? v.recvCounts : v.sendCounts;
  const std::vector<size_t>& displs = gather ? v.recvDispls : v.sendDispls;
  const RingPass pass(RingMembers{allRanks(args.nranks), args.rank, 1},
                      RingBlocks{1, [&](int b) { return lengths[b]; }}, args.maxStepElements);
  const PieceAt blocks = [&](int b, int) { return Span{gather ? kRecv : kSend, displs[b]}; };
  const PieceAt own = [&](int, int) { return Span{gather ? kSend : kRecv, 0}; };
  if (gather)
    pass.allGather(blocks, own, TagRange::slot(0), steps);
  else
    pass.reduceScatter(blocks, own, true, TagRange::slot(0), steps);
}

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

Schedule Ring::build(const CollectiveArgs& args) const {
  if (args.nranks == 1) return localCopySchedule(args, name());
  Schedule s = singleChannelSchedule(args, name());
  std::vector<Step>& steps = s.phases[0].channels[0].steps;
  switch (args.collective) {
    case Collective::Broadcast: {
      // From the root along the ring; the last rank only receives.
      Step c = chainLink(args, mod(args.rank - args.root, args.nranks));
      if (c.recvPeer < 0) c.srcs = {Span{kSend, 0}};
      c.dst = Span{kRecv, 0};
      steps.push_back(c);
      break;
    }
    case Collective::Reduce: {
      // Starts after the root and ends at it.
      Step c = chainLink(args, mod(args.rank - args.root - 1, args.nranks));
      c.reduce = c.recvPeer >= 0;
      c.final = c.sendPeer < 0;
      c.srcs = {Span{kSend, 0}};
      if (c.final) c.dst = Span{kRecv, 0};
      steps.push_back(c);
      break;
    }
    case Collective::AllGatherV:
    case Collective::ReduceScatterV:
      appendUnevenRing(args, steps);
      break;
    default:
      appendRingCollective(args, 0, args.count, 1, TagRange::slot(0), steps);
  }
  return s;
}

TRNCCL_REGISTER_ALGORITHMS(ring, {Reach::AnyRanks, make<Ring>})

}  // namespace trnccl::algo
