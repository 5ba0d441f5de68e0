#include "algorithms/algorithm.h"

namespace trnccl::algo {

Schedule singleChannelSchedule(const CollectiveArgs& args, const char* algorithm) {
  Schedule s;
  s.collective = args.collective;
  s.algorithm = algorithm;
  s.rank = args.rank;
  s.nranks = args.nranks;
  s.count = args.count;
  s.type = args.type;
  s.op = args.op;
  s.root = args.root;
  s.phases.resize(1);
  s.phases[0].channels.resize(1);
  return s;
}

Schedule localCopySchedule(const CollectiveArgs& args, const char* algorithm) {
  Schedule s = singleChannelSchedule(args, algorithm);
  Step copy;
  copy.srcs = {Span{kSend, 0}};
  copy.dst = Span{kRecv, 0};
  copy.count = args.count;
  // avg over one rank still divides (by 1), so the finishing rule is uniform.
  copy.reduce = args.op == trncclAvg && args.collective != Collective::AllGather &&
                args.collective != Collective::Broadcast && args.collective != Collective::AllToAll;
  copy.final = copy.reduce;
  s.phases[0].channels[0].steps.push_back(copy);
  return s;
}

}  // namespace trnccl::algo
