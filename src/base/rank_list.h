// Rank lists as people read them in messages.
#pragma once

#include <string>
#include <vector>

namespace trnccl {

// "rank 3", "ranks 0, 4-7" (ascending ranks in, runs folded).
std::string describeRanks(const std::vector<int>& ranks);

}  // namespace trnccl
