#include "algorithms/ring.h"

#include <algorithm>
#include <utility>

namespace trnccl::algo {
namespace {

// Rank r sends to r+1 and receives from r-1. Like NCCL, the ring loops over
// the data in rounds: in each round every block contributes at most `chunk`
// elements, and the 2(n-1) primitives of the collective run on that part.
// Primitive k of a rank receives what its predecessor sent at primitive k-1
// and sends with tag k (tags are numbered across rounds). In the
// reduce-scatter part, primitive k handles block r-k-1, so after n-1
// primitives rank r holds the fully reduced block r.
struct RingShape {
  int rank, n;
  uint32_t primitivesPerRound;  // tags per round
  uint32_t round = 0;

  int next() const { return mod(rank + 1, n); }
  int prev() const { return mod(rank - 1, n); }
  int block(int k) const { return mod(k, n); }

  Step primitive(int k, bool recv, bool send) const {
    Step s;
    const uint32_t tag = round * primitivesPerRound + static_cast<uint32_t>(k);
    if (recv) s.recvPeer = prev(), s.recvTag = tag - 1;
    if (send) s.sendPeer = next(), s.sendTag = tag;
    return s;
  }
};

// Where a block lives (buffer offset) and how long it is, both in elements.
using Extent = std::pair<size_t, size_t>;

// The part of a block that round `round` covers.
Extent roundPart(Extent block, size_t chunk, uint32_t round) {
  const size_t begin = std::min(block.second, chunk * round);
  return {block.first + begin, std::min(chunk, block.second - begin)};
}

// Reduce-scatter primitives 0..n-1 of one round. The last one holds block
// `rank` fully reduced: it goes to `out` and, for all-reduce, on to the next rank.
template <class BlockExtent>
void reduceScatter(const RingShape& ring, BlockExtent extent, size_t chunk, Extent out, bool sendFinal,
                   std::vector<Step>& steps) {
  const int n = ring.n, r = ring.rank;
  for (int k = 0; k < n; ++k) {
    const bool last = k == n - 1;
    Step s = ring.primitive(k, k > 0, !last || sendFinal);
    auto [offset, count] = roundPart(extent(ring.block(r - 1 - k)), chunk, ring.round);
    s.reduce = k > 0;
    s.final = last;
    s.srcs = {Span{kSend, offset}};
    if (last) s.dst = Span{kRecv, roundPart(out, chunk, ring.round).first};
    s.count = count;
    steps.push_back(s);
  }
}

// All-gather primitives first..first+n-2 of one round: each receives block
// r-j from the predecessor into the receive buffer and forwards it, but the last.
template <class BlockExtent>
void gatherAround(const RingShape& ring, int first, BlockExtent where, size_t chunk, std::vector<Step>& steps) {
  for (int j = 1; j < ring.n; ++j) {
    Step g = ring.primitive(first + j - 1, true, j < ring.n - 1);
    auto [offset, count] = roundPart(where(ring.block(ring.rank - j)), chunk, ring.round);
    g.dst = Span{kRecv, offset};
    g.count = count;
    steps.push_back(g);
  }
}

}  // namespace

std::string Ring::whyUnsupported(const CollectiveArgs& args) const {
  if (args.collective == Collective::AllToAll || args.collective == Collective::SendRecv)
    return std::string("ring does not implement ") + collectiveName(args.collective);
  return {};
}

Schedule Ring::build(const CollectiveArgs& args) const {
  if (args.nranks == 1) return localCopySchedule(args, name());
  Schedule s = singleChannelSchedule(args, name());
  std::vector<Step>& steps = s.phases[0].channels[0].steps;
  const int n = args.nranks, r = args.rank;
  const size_t count = args.count;
  auto nearlyEqual = [&](int b) { return Extent{blockBegin(count, n, b), blockSize(count, n, b)}; };
  auto equal = [&](int b) { return Extent{count * b, count}; };

  // Blocks are at most this long; a round covers `chunk` elements of each.
  const size_t longest = args.collective == Collective::AllReduce ? blockSize(count, n, 0) : count;
  const size_t chunk = args.maxStepElements ? std::min(args.maxStepElements, longest) : longest;
  const auto rounds = static_cast<uint32_t>(chunk ? (longest + chunk - 1) / chunk : 0);
  RingShape ring{r, n, static_cast<uint32_t>(2 * n)};

  switch (args.collective) {
    case Collective::AllReduce:
      for (ring.round = 0; ring.round < rounds; ++ring.round) {
        reduceScatter(ring, nearlyEqual, chunk, nearlyEqual(r), true, steps);
        gatherAround(ring, n, nearlyEqual, chunk, steps);
      }
      break;
    case Collective::ReduceScatter:
      for (ring.round = 0; ring.round < rounds; ++ring.round)
        reduceScatter(ring, equal, chunk, Extent{0, count}, false, steps);
      break;
    case Collective::AllGather:
      for (ring.round = 0; ring.round < rounds; ++ring.round) {
        Step first = ring.primitive(0, false, true);
        auto [offset, part] = roundPart(Extent{0, count}, chunk, ring.round);
        first.srcs = {Span{kSend, offset}};
        first.dst = Span{kRecv, count * r + offset};
        first.count = part;
        steps.push_back(first);
        gatherAround(ring, 1, equal, chunk, steps);
      }
      break;
    case Collective::Broadcast: {
      // A chain from the root along the ring, relaying slice by slice within
      // one step; the last rank only receives.
      const int pos = mod(r - args.root, n);
      Step c = ring.primitive(1, pos != 0, pos != n - 1);
      c.recvTag = c.sendTag = 0;
      if (pos == 0) c.srcs = {Span{kSend, 0}};
      c.dst = Span{kRecv, 0};
      c.count = count;
      steps.push_back(c);
      break;
    }
    case Collective::Reduce: {
      // A chain that starts after the root and ends at it.
      const int pos = mod(r - args.root - 1, n);
      Step c = ring.primitive(1, pos != 0, pos != n - 1);
      c.recvTag = c.sendTag = 0;
      c.reduce = pos != 0;
      c.final = pos == n - 1;
      c.srcs = {Span{kSend, 0}};
      if (c.final) c.dst = Span{kRecv, 0};
      c.count = count;
      steps.push_back(c);
      break;
    }
    default:
      break;
  }
  return s;
}

}  // namespace trnccl::algo
