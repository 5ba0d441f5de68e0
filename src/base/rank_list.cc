#include "base/rank_list.h"

namespace trnccl {

std::string describeRanks(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size();) {
    size_t last = i;
    while (last + 1 < ranks.size() && ranks[last + 1] == ranks[last] + 1) ++last;
    text += (i ? ", " : "") + std::to_string(ranks[i]);
    if (last > i) text += "-" + std::to_string(ranks[last]);
    i = last + 1;
  }
  return text;
}

}  // namespace trnccl
