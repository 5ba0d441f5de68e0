#include "algorithms/bidir_ring.h"

#include "algorithms/registry.h"
#include "algorithms/ring.h"

namespace trnccl::algo {

std::string BidirRing::whyUnsupported(const CollectiveArgs& args) const {
  switch (args.collective) {
    case Collective::AllReduce:
    case Collective::AllGather:
    case Collective::ReduceScatter:
      return {};
    default:
      return std::string("bidir_ring does not implement ") + collectiveName(args.collective);
  }
}

Schedule BidirRing::build(const CollectiveArgs& args) const {
  if (args.nranks == 1) return localCopySchedule(args, name());
  return materialise(*steps(args));
}

std::unique_ptr<StepSource> BidirRing::steps(const CollectiveArgs& args) const {
  if (args.nranks == 1) return Algorithm::steps(args);
  // Half h of the data (of the buffer, or of every rank's block) goes around
  // in direction +1 for h = 0 and -1 for h = 1.
  std::vector<RingCollective> rings;
  for (int h = 0; h < 2; ++h)
    rings.push_back(ringCollective(args, blockBegin(args.count, 2, h), blockSize(args.count, 2, h), h == 0 ? 1 : -1,
                                   TagRange::slot(h)));
  return std::make_unique<RingChannels>(args, name(), std::move(rings));
}

TRNCCL_REGISTER_ALGORITHMS(bidir_ring, {Reach::AnyRanks, make<BidirRing>, 1})

}  // namespace trnccl::algo
