#include "algorithms/layout.h"

#include <set>

namespace trnccl::algo {

int RankLayout::instances() const {
  return instanceOf.empty() ? 1 : static_cast<int>(std::set<int>(instanceOf.begin(), instanceOf.end()).size());
}

}  // namespace trnccl::algo
