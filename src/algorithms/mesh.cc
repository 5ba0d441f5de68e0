#include "algorithms/mesh.h"

#include "algorithms/registry.h"

namespace trnccl::algo {
namespace {

// A block of a buffer: where it starts and how many elements it holds.
struct Block {
  Span at;
  size_t count;
};

// Phase 0: to every peer p, send `sendBlock(p)`; from every peer q, receive
// into `recvBlock(q)`. The message from r to p is tagged with the distance
// (p - r) mod n, which the receiver computes the same way.
template <class SendBlock, class RecvBlock>
void exchange(const CollectiveArgs& args, SendBlock sendBlock, RecvBlock recvBlock, Phase& phase) {
  const int n = args.nranks, r = args.rank;
  for (int d = 1; d < n; ++d) {
    Step send;
    send.sendPeer = mod(r + d, n);
    send.sendTag = static_cast<uint32_t>(d);
    const Block out = sendBlock(send.sendPeer);
    send.srcs = {out.at};
    send.count = out.count;
    Step recv;
    recv.recvPeer = mod(r - d, n);
    recv.recvTag = static_cast<uint32_t>(d);
    const Block in = recvBlock(recv.recvPeer);
    recv.dst = in.at;
    recv.count = in.count;
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
    case Collective::AllToAllV:
      return {};
    default:
      return std::string("mesh does not implement ") + collectiveName(args.collective);
  }
}

Schedule Mesh::build(const CollectiveArgs& args) const {
  // One rank's all-to-all-v is its own block's copy, at its displacements.
  if (args.nranks == 1 && args.collective != Collective::AllToAllV) return localCopySchedule(args, name());
  Schedule s = singleChannelSchedule(args, name());
  s.phases[0].channels.clear();
  const int n = args.nranks, r = args.rank;
  const size_t count = args.count;
  auto at = [](uint16_t buffer, size_t offset) { return Span{buffer, offset}; };

  switch (args.collective) {
    case Collective::AllGather: {
      exchange(
          args,
          [&](int) {
            return Block{at(kSend, 0), count};
          },
          [&](int q) {
            return Block{at(kRecv, count * q), count};
          },
          s.phases[0]);
      s.phases[0].channels.push_back(Channel{{localCopy(at(kSend, 0), at(kRecv, count * r), count)}});
      break;
    }
    case Collective::AllToAll: {
      // In place, blocks still to be sent would be overwritten: receive into
      // scratch and copy once every send is done.
      const uint16_t landing = args.inPlace ? kScratch : kRecv;
      if (args.inPlace) s.scratchElements = count * n;
      exchange(
          args,
          [&](int p) {
            return Block{at(kSend, count * p), count};
          },
          [&](int q) {
            return Block{at(landing, count * q), count};
          },
          s.phases[0]);
      s.phases[0].channels.push_back(Channel{{localCopy(at(kSend, count * r), at(kRecv, count * r), count)}});
      if (args.inPlace) {
        s.phases.emplace_back();
        for (int q = 0; q < n; ++q)
          if (q != r)
            s.phases[1].channels.push_back(Channel{{localCopy(at(kScratch, count * q), at(kRecv, count * q), count)}});
      }
      break;
    }
    case Collective::AllToAllV: {
      // Out of place only (the API refuses overlapping buffers).
      const VarCounts& v = *args.v;
      exchange(
          args,
          [&](int p) {
            return Block{at(kSend, v.sendDispls[p]), v.sendCounts[p]};
          },
          [&](int q) {
            return Block{at(kRecv, v.recvDispls[q]), v.recvCounts[q]};
          },
          s.phases[0]);
      s.phases[0].channels.push_back(
          Channel{{localCopy(at(kSend, v.sendDispls[r]), at(kRecv, v.recvDispls[r]), v.sendCounts[r])}});
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
          args,
          [&](int p) {
            return Block{at(kSend, scatter ? count * p : 0), count};
          },
          [&](int q) {
            return Block{at(kScratch, count * q), count};
          },
          s.phases[0]);
      Span own = at(kSend, scatter ? count * r : 0);
      if (args.inPlace) {
        s.phases[0].channels.push_back(Channel{{localCopy(own, at(kScratch, count * r), count)}});
        own = at(kScratch, count * r);
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

TRNCCL_REGISTER_ALGORITHMS(mesh, {Reach::AnyRanks, make<Mesh>, 4})

}  // namespace trnccl::algo
