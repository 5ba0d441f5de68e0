#include "algorithms/mesh.h"

#include "algorithms/registry.h"

namespace trnccl::algo {
namespace {

// Phase 0: to every peer p, send `sendBlock(p)`; from every peer q, receive
// into `recvBlock(q)`. The message from r to p is tagged with the distance
// (p - r) mod n, which the receiver computes the same way.
template <class SendBlock, class RecvBlock>
void exchange(const CollectiveArgs& args, size_t count, SendBlock sendBlock, RecvBlock recvBlock, Phase& phase) {
  const int n = args.nranks, r = args.rank;
  for (int d = 1; d < n; ++d) {
    Step send;
    send.sendPeer = mod(r + d, n);
    send.sendTag = static_cast<uint32_t>(d);
    send.srcs = {sendBlock(send.sendPeer)};
    send.count = count;
    Step recv;
    recv.recvPeer = mod(r - d, n);
    recv.recvTag = static_cast<uint32_t>(d);
    recv.dst = recvBlock(recv.recvPeer);
    recv.count = count;
    phase.channels.push_back(Channel{{send}});
    phase.channels.push_back(Channel{{recv}});
  }
}

}  // namespace

std::string Mesh::whyUnsupported(const CollectiveArgs& args) const {
  switch (args.collective) {
    case Collective::AllReduce:
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll:
      return {};
    default:
      return std::string("mesh does not implement ") + collectiveName(args.collective);
  }
}

Schedule Mesh::build(const CollectiveArgs& args) const {
  if (args.nranks == 1) return localCopySchedule(args, name());
  Schedule s = singleChannelSchedule(args, name());
  s.phases[0].channels.clear();
  const int n = args.nranks, r = args.rank;
  const size_t count = args.count;
  auto at = [](uint16_t buffer, size_t offset) { return Span{buffer, offset}; };

  switch (args.collective) {
    case Collective::AllGather: {
      exchange(
          args, count, [&](int) { return at(kSend, 0); }, [&](int q) { return at(kRecv, count * q); }, s.phases[0]);
      Step own;
      own.srcs = {at(kSend, 0)};
      own.dst = at(kRecv, count * r);
      own.count = count;
      s.phases[0].channels.push_back(Channel{{own}});
      break;
    }
    case Collective::AllToAll: {
      // In place, blocks still to be sent would be overwritten: receive into
      // scratch and copy once every send is done.
      const uint16_t landing = args.inPlace ? kScratch : kRecv;
      if (args.inPlace) s.scratchElements = count * n;
      exchange(
          args, count, [&](int p) { return at(kSend, count * p); }, [&](int q) { return at(landing, count * q); },
          s.phases[0]);
      Step own;
      own.srcs = {at(kSend, count * r)};
      own.dst = at(kRecv, count * r);
      own.count = count;
      s.phases[0].channels.push_back(Channel{{own}});
      if (args.inPlace) {
        s.phases.emplace_back();
        for (int q = 0; q < n; ++q) {
          if (q == r) continue;
          Step copy;
          copy.srcs = {at(kScratch, count * q)};
          copy.dst = at(kRecv, count * q);
          copy.count = count;
          s.phases[1].channels.push_back(Channel{{copy}});
        }
      }
      break;
    }
    case Collective::AllReduce:
    case Collective::ReduceScatter: {
      // Gather every rank's contribution (the whole buffer, or this rank's
      // block of it) into scratch slot q, then reduce the n slots in rank order.
      // In place, the result overwrites this rank's own contribution, which the
      // kernel may only alias as its first source: stage it in scratch too.
      const bool scatter = args.collective == Collective::ReduceScatter;
      s.scratchElements = count * n;
      exchange(
          args, count, [&](int p) { return at(kSend, scatter ? count * p : 0); },
          [&](int q) { return at(kScratch, count * q); }, s.phases[0]);
      Span own = at(kSend, scatter ? count * r : 0);
      if (args.inPlace) {
        Step stage;
        stage.srcs = {own};
        stage.dst = own = at(kScratch, count * r);
        stage.count = count;
        s.phases[0].channels.push_back(Channel{{stage}});
      }
      Step reduce;
      reduce.reduce = true;
      reduce.final = true;
      for (int q = 0; q < n; ++q) reduce.srcs.push_back(q == r ? own : at(kScratch, count * q));
      reduce.dst = at(kRecv, 0);
      reduce.count = count;
      s.phases.push_back(Phase{{Channel{{reduce}}}});
      break;
    }
    default:
      break;
  }
  return s;
}

TRNCCL_REGISTER_ALGORITHMS(mesh, {Reach::AnyRanks, make<Mesh>})

}  // namespace trnccl::algo
