#include "logic/expected_output.h"

namespace trnccl::perf {

ExpectedOutput::ExpectedOutput(Collective collective, const PatternSpec& spec, const Layout& layout, int rank, int root)
    : collective_(collective),
      spec_(spec),
      layout_(layout),
      rank_(rank),
      root_(root),
      // Only the root's output is defined for reduce and gather.
      checked_count_((collective == Collective::Reduce || collective == Collective::Gather) && rank != root
                         ? 0
                         : layout.recv_count) {
  if (reduces(collective)) {
    for (size_t i = 0; i < kPatternPeriod; ++i) reduced_[i] = reduced_value(spec_, i);
  }
}

ExpectedValue ExpectedOutput::at(size_t element) const {
  const size_t share = layout_.count;
  const auto rank = static_cast<size_t>(rank_);
  switch (collective_) {
    case Collective::AllReduce:
    case Collective::Reduce:
      return reduced_[element % kPatternPeriod];
    case Collective::ReduceScatter:
    case Collective::ReduceScatterV:
      return reduced_[(rank * share + element) % kPatternPeriod];
    case Collective::AllGather:
    case Collective::AllGatherV:
    case Collective::Gather:
      return input_of(static_cast<int>(element / share), element % share);
    case Collective::AllToAll:
    case Collective::AllToAllV:
      return input_of(static_cast<int>(element / share), rank * share + element % share);
    case Collective::Broadcast:
      return input_of(root_, element);
    case Collective::Scatter:
      return input_of(root_, rank * share + element);
    case Collective::SendRecv:
    case Collective::Permute:
      break;
  }
  return input_of((rank_ + spec_.nranks - 1) % spec_.nranks, element);  // from the previous rank
}

}  // namespace trnccl::perf
