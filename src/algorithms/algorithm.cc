#include "algorithms/algorithm.h"

#include <numeric>

namespace trnccl::algo {

std::shared_ptr<const VarCounts> evenBlocks(Collective c, size_t count, int nranks) {
  if (!isVariable(c)) return nullptr;
  std::vector<size_t> counts(nranks, count), displs(nranks);
  for (int q = 0; q < nranks; ++q) displs[q] = count * q;
  auto v = std::make_shared<VarCounts>();
  if (c != Collective::AllGatherV) v->sendCounts = counts, v->sendDispls = displs;
  if (c != Collective::ReduceScatterV) v->recvCounts = counts, v->recvDispls = displs;
  return v;
}

CollectiveArgs argsOfRank(CollectiveArgs args, int r) {
  args.rank = r;
  if (args.collective == Collective::Permute)
    args.sendPeer = mod(r + 1, args.nranks), args.recvPeer = mod(r - 1, args.nranks);
  return args;
}

bool reduces(Collective c) {
  return c == Collective::AllReduce || c == Collective::ReduceScatter || c == Collective::Reduce ||
         c == Collective::ReduceScatterV;
}

bool isVariable(Collective c) {
  return c == Collective::AllToAllV || c == Collective::AllGatherV || c == Collective::ReduceScatterV;
}

size_t agreedCount(const CollectiveArgs& args) {
  switch (args.collective) {
    case Collective::AllGatherV:
      return std::accumulate(args.v->recvCounts.begin(), args.v->recvCounts.end(), size_t{0});
    case Collective::ReduceScatterV:
      return std::accumulate(args.v->sendCounts.begin(), args.v->sendCounts.end(), size_t{0});
    case Collective::AllToAllV:
    case Collective::Permute:
      return 0;
    default:
      return args.count;
  }
}

std::unique_ptr<StepSource> Algorithm::steps(const CollectiveArgs& args) const {
  return std::make_unique<ScheduleSource>(build(args));
}

Step localCopy(Span from, Span to, size_t count) {
  Step copy;
  copy.srcs = {from};
  copy.dst = to;
  copy.count = count;
  return copy;
}

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
  copy.srcs = {Span{kSend, args.collective == Collective::ReduceScatterV ? args.v->sendDispls[0] : 0}};
  copy.dst = Span{kRecv, args.collective == Collective::AllGatherV ? args.v->recvDispls[0] : 0};
  copy.count = args.count;
  // avg over one rank still divides (by 1), so the finishing rule is uniform.
  copy.reduce = args.op == trncclAvg && reduces(args.collective);
  copy.final = copy.reduce;
  s.phases[0].channels[0].steps.push_back(copy);
  return s;
}

}  // namespace trnccl::algo
