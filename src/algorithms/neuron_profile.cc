#include "algorithms/neuron_profile.h"

#include <string_view>

#include "base/datatype.h"

namespace trnccl::algo {

int neuronRange(const CollectiveArgs& args) {
  if (args.collective != Collective::AllReduce && args.collective != Collective::AllGather &&
      args.collective != Collective::ReduceScatter)
    return -1;
  const size_t bytes = args.count * typeSize(args.type) *
                       (args.collective == Collective::AllReduce ? 1 : static_cast<size_t>(args.nranks));
  constexpr size_t kMeshBelow = size_t{1} << 20, kRdhUpTo = size_t{56} << 20;
  return bytes < kMeshBelow ? 0 : bytes <= kRdhUpTo ? 1 : 2;
}

const Algorithm* neuronChoice(const std::vector<const Algorithm*>& candidates, int range, int instances) {
  // Per size range, Neuron's algorithm first, then what stands in for it
  // where it cannot run (a rank count RDH does not take, a single rank).
  // Within an instance Neuron's RDH runs across chips, with an on-chip stage
  // (chip_rdh); the flat rdh stands in off a chip grid.
  using Names = std::vector<std::string_view>;
  static const Names kWithin[3] = {
      {"mesh", "rdh", "ring"}, {"chip_rdh", "rdh", "kangaring", "ring"}, {"kangaring", "ring", "rdh"}};
  static const Names kAcross[3] = {{"hierarchical_mesh", "hierarchical_rdh", "hierarchical"},
                                   {"hierarchical_rdh", "hierarchical", "hierarchical_mesh"},
                                   {"hierarchical", "hierarchical_rdh", "hierarchical_mesh"}};
  for (std::string_view name : (instances > 1 ? kAcross : kWithin)[range])
    for (const Algorithm* a : candidates)
      if (name == a->name()) return a;
  return nullptr;
}

}  // namespace trnccl::algo
