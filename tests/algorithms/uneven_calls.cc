#include "uneven_calls.h"

#include <algorithm>

#include "collective_check.h"

namespace trnccl::test {

using algo::Collective;

namespace {

size_t blockLength(size_t count, int pattern, int seed) {
  return pattern == 0 ? count : (static_cast<size_t>(seed) * 3 + count + pattern) % (count + 2);
}

// Where each block starts in the pattern's layout.
std::vector<size_t> displacements(const std::vector<size_t>& lengths, int pattern) {
  const int n = static_cast<int>(lengths.size());
  std::vector<size_t> displs(n);
  size_t at = 0;
  for (int k = 0; k < n; ++k) {
    const int q = pattern == 2 ? n - 1 - k : k;
    displs[q] = at;
    at += lengths[q] + (pattern == 1 ? 1 : 0);
  }
  return displs;
}

size_t extent(const std::vector<size_t>& counts, const std::vector<size_t>& displs) {
  size_t end = 0;
  for (size_t q = 0; q < counts.size(); ++q) end = std::max(end, displs[q] + counts[q]);
  return end;
}

// The block of `counts`/`displs` holding element i, or -1.
int blockOf(const std::vector<size_t>& counts, const std::vector<size_t>& displs, size_t i) {
  for (size_t q = 0; q < counts.size(); ++q)
    if (i >= displs[q] && i < displs[q] + counts[q]) return static_cast<int>(q);
  return -1;
}

}  // namespace

bool takesRankArguments(Collective c) { return algo::isVariable(c) || c == Collective::Permute; }

std::vector<algo::CollectiveArgs> unevenCall(const algo::CollectiveArgs& call, int pattern) {
  const int n = call.nranks;
  std::vector<algo::CollectiveArgs> ranks(n, call);
  std::vector<size_t> shared(n);  // all-gather-v's and reduce-scatter-v's blocks, the same on every rank
  for (int q = 0; q < n; ++q) shared[q] = blockLength(call.count, pattern, q);
  for (int r = 0; r < n; ++r) {
    algo::CollectiveArgs& a = ranks[r];
    a.rank = r;
    auto v = std::make_shared<algo::VarCounts>();
    switch (call.collective) {
      case Collective::AllGatherV:
        v->recvCounts = shared, v->recvDispls = displacements(shared, pattern);
        a.count = shared[r];
        break;
      case Collective::ReduceScatterV:
        v->sendCounts = shared, v->sendDispls = displacements(shared, pattern);
        a.count = shared[r];
        break;
      case Collective::AllToAllV:
        for (int q = 0; q < n; ++q) {
          v->sendCounts.push_back(blockLength(call.count, pattern, r * 3 + q * 7));
          v->recvCounts.push_back(blockLength(call.count, pattern, q * 3 + r * 7));
        }
        v->sendDispls = displacements(v->sendCounts, pattern);
        v->recvDispls = displacements(v->recvCounts, (pattern + 1) % kUnevenPatterns);
        break;
      case Collective::Permute:
        if (pattern == 0) a.sendPeer = (r + 1) % n, a.recvPeer = (r + n - 1) % n;
        if (pattern == 1) a.sendPeer = a.recvPeer = n - 1 - r;
        if (pattern == 2) a.sendPeer = r + 1 < n ? r + 1 : -1, a.recvPeer = r - 1;
        break;
      default:
        break;
    }
    if (algo::isVariable(call.collective)) a.v = std::move(v);
  }
  return ranks;
}

RankBuffers makeNewBuffers(const std::vector<algo::CollectiveArgs>& ranks, int r) {
  const algo::CollectiveArgs& a = ranks[r];
  const int n = a.nranks;
  const size_t count = a.count;
  const bool isRoot = r == a.root;
  size_t sendSize = count, recvSize = count;
  // Where the in-place layout puts the smaller buffer inside the larger.
  std::optional<size_t> sendInRecv, recvInSend;
  switch (a.collective) {
    case Collective::Gather:
      recvSize = isRoot ? count * n : 0;
      if (isRoot) sendInRecv = count * r;
      break;
    case Collective::Scatter:
      sendSize = isRoot ? count * n : 0;
      if (isRoot) recvInSend = count * r;
      break;
    case Collective::AllToAllV:
      sendSize = extent(a.v->sendCounts, a.v->sendDispls);
      recvSize = extent(a.v->recvCounts, a.v->recvDispls);
      break;
    case Collective::AllGatherV:
      recvSize = extent(a.v->recvCounts, a.v->recvDispls);
      sendInRecv = a.v->recvDispls[r];
      break;
    case Collective::ReduceScatterV:
      sendSize = extent(a.v->sendCounts, a.v->sendDispls);
      recvInSend = a.v->sendDispls[r];
      break;
    default:  // permute
      sendInRecv = 0;
      break;
  }
  RankBuffers b;
  b.sendSize = sendSize;
  b.recvSize = recvSize;
  if (a.inPlace && sendInRecv) {
    b.memory.assign(recvSize, -99);
    b.sendAt = *sendInRecv;
  } else if (a.inPlace && recvInSend) {
    b.memory.assign(sendSize, -99);
    b.recvAt = *recvInSend;
  } else {
    b.memory.assign(sendSize + recvSize, -99);
    b.recvAt = sendSize;
  }
  for (size_t i = 0; i < sendSize; ++i) b.memory[b.sendAt + i] = input(r, i);
  return b;
}

std::optional<double> expectedNew(const std::vector<algo::CollectiveArgs>& ranks, int r, size_t i) {
  const algo::CollectiveArgs& a = ranks[r];
  const size_t count = a.count;
  switch (a.collective) {
    case Collective::Gather:
      if (r != a.root) return std::nullopt;
      return input(static_cast<int>(i / count), i % count);
    case Collective::Scatter:
      return input(a.root, count * r + i);
    case Collective::AllToAllV: {
      const int q = blockOf(a.v->recvCounts, a.v->recvDispls, i);
      if (q < 0) return std::nullopt;
      return input(q, ranks[q].v->sendDispls[r] + (i - a.v->recvDispls[q]));
    }
    case Collective::AllGatherV: {
      const int q = blockOf(a.v->recvCounts, a.v->recvDispls, i);
      if (q < 0) return std::nullopt;
      return input(q, i - a.v->recvDispls[q]);
    }
    case Collective::ReduceScatterV:
      return fold(a.op, a.nranks, [&](int q) { return input(q, a.v->sendDispls[r] + i); });
    case Collective::Permute:
      if (a.recvPeer < 0) return std::nullopt;
      return input(a.recvPeer, i);
    default:
      return std::nullopt;
  }
}

}  // namespace trnccl::test
