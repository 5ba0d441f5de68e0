#include "algorithms/direct.h"

#include "algorithms/registry.h"

namespace trnccl::algo {
namespace {

Step sendTo(int peer, Span from, size_t count) {
  Step s;
  s.srcs = {from};
  s.count = count;
  s.sendPeer = peer;
  return s;
}

Step receiveFrom(int peer, Span to, size_t count) {
  Step s;
  s.dst = to;
  s.count = count;
  s.recvPeer = peer;
  return s;
}

// Gather: every rank's block goes to the root's receive buffer at count * rank.
// Scatter: the root's block q goes to rank q's receive buffer. The root's
// own block is a copy (onto itself in place, as the ring all-gather does).
void rooted(const CollectiveArgs& args, Phase& phase) {
  const int n = args.nranks, r = args.rank, root = args.root;
  const size_t count = args.count;
  const bool gather = args.collective == Collective::Gather;
  if (r != root) {
    phase.channels.push_back(
        Channel{{gather ? sendTo(root, Span{kSend, 0}, count) : receiveFrom(root, Span{kRecv, 0}, count)}});
    return;
  }
  for (int q = 0; q < n; ++q) {
    if (q == root) continue;
    phase.channels.push_back(
        Channel{{gather ? receiveFrom(q, Span{kRecv, count * q}, count) : sendTo(q, Span{kSend, count * q}, count)}});
  }
  phase.channels.push_back(Channel{{gather ? localCopy(Span{kSend, 0}, Span{kRecv, count * root}, count)
                                           : localCopy(Span{kSend, count * root}, Span{kRecv, 0}, count)}});
}

// Permute: send the buffer to sendPeer, receive recvPeer's into it. In place,
// what arrives lands in scratch until the send is done.
void permute(const CollectiveArgs& args, Schedule& s) {
  const size_t count = args.count;
  Phase& phase = s.phases[0];
  if (args.sendPeer == args.rank) {  // the API pairs it with recvPeer == rank
    phase.channels.push_back(Channel{{localCopy(Span{kSend, 0}, Span{kRecv, 0}, count)}});
    return;
  }
  const bool stage = args.inPlace && args.sendPeer >= 0 && args.recvPeer >= 0;
  if (args.sendPeer >= 0) phase.channels.push_back(Channel{{sendTo(args.sendPeer, Span{kSend, 0}, count)}});
  if (args.recvPeer >= 0)
    phase.channels.push_back(Channel{{receiveFrom(args.recvPeer, Span{stage ? kScratch : kRecv, 0}, count)}});
  if (stage) {
    s.scratchElements = count;
    s.phases.push_back(Phase{{Channel{{localCopy(Span{kScratch, 0}, Span{kRecv, 0}, count)}}}});
  }
}

}  // namespace

std::string Direct::whyUnsupported(const CollectiveArgs& args) const {
  switch (args.collective) {
    case Collective::Gather:
    case Collective::Scatter:
    case Collective::Permute:
      return {};
    default:
      return std::string("direct does not implement ") + collectiveName(args.collective);
  }
}

Schedule Direct::build(const CollectiveArgs& args) const {
  Schedule s = singleChannelSchedule(args, name());
  s.phases[0].channels.clear();
  if (args.collective == Collective::Permute)
    permute(args, s);
  else
    rooted(args, s.phases[0]);
  return s;
}

TRNCCL_REGISTER_ALGORITHMS(direct, {Reach::AnyRanks, make<Direct>, 10})

}  // namespace trnccl::algo
