#include "uneven_layouts.h"

#include <utility>

namespace trnccl::test {
namespace {

size_t unevenLength(size_t count, int seed) { return count * static_cast<size_t>(seed % 3) / 2; }

// Reverse rank order with a gap after each block, or (`packed`) rank order without gaps.
Blocks laidOut(std::vector<size_t> counts, bool packed = false) {
  Blocks b;
  const size_t n = counts.size();
  b.displs.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const size_t q = packed ? k : n - 1 - k;
    b.displs[q] = b.extent;
    b.extent += counts[q] + (packed ? 0 : 1);
  }
  b.counts = std::move(counts);
  return b;
}

}  // namespace

int Blocks::blockOf(size_t j) const {
  for (size_t q = 0; q < counts.size(); ++q)
    if (j >= displs[q] && j < displs[q] + counts[q]) return static_cast<int>(q);
  return -1;
}

Blocks sharedBlocks(size_t count, int nranks) {
  std::vector<size_t> counts;
  for (int q = 0; q < nranks; ++q) counts.push_back(unevenLength(count, q + 1));
  return laidOut(counts);
}

Blocks sendBlocks(size_t count, int nranks, int from) {
  std::vector<size_t> counts;
  for (int q = 0; q < nranks; ++q) counts.push_back(unevenLength(count, 1 + from + 2 * q));
  return laidOut(counts);
}

Blocks recvBlocks(size_t count, int nranks, int to) {
  std::vector<size_t> counts;
  for (int q = 0; q < nranks; ++q) counts.push_back(unevenLength(count, 1 + q + 2 * to));
  return laidOut(counts, true);  // a different layout from the send side
}

std::pair<int, int> permutePeers(size_t count, int nranks, int rank) {
  if (count == 37) return {rank + 1 < nranks ? rank + 1 : -1, rank - 1};
  return {(rank + 1) % nranks, (rank + nranks - 1) % nranks};
}

}  // namespace trnccl::test
