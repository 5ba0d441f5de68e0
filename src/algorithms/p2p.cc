#include "algorithms/p2p.h"

#include <map>
#include <string>

#include "base/error.h"

namespace trnccl::algo {

Schedule buildP2P(int rank, int nranks, const std::vector<P2POp>& ops) {
  Schedule s;
  s.collective = Collective::SendRecv;
  s.algorithm = "p2p";
  s.rank = rank;
  s.nranks = nranks;
  s.type = trncclUint8;
  s.phases.resize(1);
  for (size_t i = 0; i < ops.size(); ++i) {
    const P2POp& op = ops[i];
    const auto buffer = static_cast<uint16_t>(kFirstUserBuffer + i);
    Step step;
    step.count = op.bytes;
    if (op.peer == rank) {
      if (op.send) continue;  // consumed by its receive below
      size_t j = 0;
      while (j < ops.size() && !(ops[j].send && ops[j].peer == rank && ops[j].tag == op.tag)) ++j;
      if (j == ops.size())
        throwError(trncclInvalidUsage,
                   "a receive from self (rank " + std::to_string(rank) + ") has no matching send to self in the group");
      if (ops[j].bytes != op.bytes)
        throwError(trncclInvalidUsage, "send to self of " + std::to_string(ops[j].bytes) +
                                           " bytes does not match the receive of " + std::to_string(op.bytes) +
                                           " bytes");
      step.srcs = {Span{static_cast<uint16_t>(kFirstUserBuffer + j), 0}};
      step.dst = Span{buffer, 0};
    } else if (op.send) {
      step.sendPeer = op.peer;
      step.sendTag = op.tag;
      step.srcs = {Span{buffer, 0}};
    } else {
      step.recvPeer = op.peer;
      step.recvTag = op.tag;
      step.dst = Span{buffer, 0};
    }
    s.phases[0].channels.push_back(Channel{{step}});
  }
  size_t selfSends = 0, selfRecvs = 0;
  for (const P2POp& op : ops) (op.send ? selfSends : selfRecvs) += op.peer == rank;
  if (selfSends != selfRecvs)
    throwError(trncclInvalidUsage,
               "a send to self (rank " + std::to_string(rank) + ") has no matching receive from self in the group");
  return s;
}

Prediction predictP2P(int rank, int nranks, const std::vector<P2POp>& ops, const Network& net) {
  CostModel model(net);
  model.add(buildP2P(rank, nranks, ops));
  std::map<int, std::vector<P2POp>> peerSide;
  for (const P2POp& op : ops)
    if (op.peer != rank) peerSide[op.peer].push_back(P2POp{!op.send, rank, op.bytes, op.tag});
  for (const auto& [peer, peerOps] : peerSide) model.add(buildP2P(peer, nranks, peerOps));
  return model.prediction();
}

}  // namespace trnccl::algo
