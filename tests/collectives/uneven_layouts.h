// The per-rank arguments of the matrix's variable-size collectives and of
// permute, the same on every rank that computes them: block lengths 0,
// count / 2 and count in turn (uneven, with empty blocks), laid out in
// reverse rank order with a one-element gap after each block (a gap must
// come back unchanged; all-to-all-v's receive side is packed in rank order
// instead); permute shifts by one rank, or, for count 37, runs
// an open chain whose ends send or receive nothing.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace trnccl::test {

struct Blocks {
  std::vector<size_t> counts, displs;
  size_t extent = 0;  // elements from the buffer's start to the end of the furthest block

  // The block holding element j, or -1 (a gap).
  int blockOf(size_t j) const;
};

// All-gather-v's receive blocks and reduce-scatter-v's send blocks.
Blocks sharedBlocks(size_t count, int nranks);
// All-to-all-v: what rank `from` sends to each rank, what rank `to` receives from each.
Blocks sendBlocks(size_t count, int nranks, int from);
Blocks recvBlocks(size_t count, int nranks, int to);
// Permute: {sendPeer, recvPeer} of `rank`, -1 for none.
std::pair<int, int> permutePeers(size_t count, int nranks, int rank);

}  // namespace trnccl::test
