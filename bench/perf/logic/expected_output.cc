#include "logic/expected_output.h"

namespace trnccl::perf {

ExpectedOutput::ExpectedOutput(Collective collective, const PatternSpec& spec, const Layout& layout, int rank, int root)
    : collective_(collective),
      spec_(spec),
      layout_(layout),
      rank_(rank),
      root_(root),
      // Only the root's output is defined for reduce and gather.
      checked_count_((collective == Collective::reduce || collective == Collective::gather) && rank != root
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
    case Collective::all_reduce:
    case Collective::reduce:
      return reduced_[element % kPatternPeriod];
    case Collective::reduce_scatter:
    case Collective::reducescatterv:
      return reduced_[(rank * share + element) % kPatternPeriod];
    case Collective::all_gather:
    case Collective::allgatherv:
    case Collective::gather:
      return input_of(static_cast<int>(element / share), element % share);
    case Collective::alltoall:
    case Collective::alltoallv:
      return input_of(static_cast<int>(element / share), rank * share + element % share);
    case Collective::broadcast:
      return input_of(root_, element);
    case Collective::scatter:
      return input_of(root_, rank * share + element);
    case Collective::sendrecv:
    case Collective::permute:
      break;
  }
  return input_of((rank_ + spec_.nranks - 1) % spec_.nranks, element);  // from the previous rank
}

}  // namespace trnccl::perf
