// The collectives added since the first generation: NCCL 2.28's gather and
// scatter, and Neuron's all-to-all-v, all-gather-v, reduce-scatter-v and
// permute. Each validates every argument (naming the bad one, with the index
// of a bad block), then hands the call to core::issueCollective; the
// algorithms (direct, mesh, ring) make their schedules.
#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "api/argument_checks.h"
#include "api/coll_config.h"
#include "api/guard.h"

using namespace trnccl::api;
using trnccl::throwInvalidArgument;
using trnccl::algo::Collective;
namespace core = trnccl::core;

namespace {

std::string item(const char* array, size_t q) { return std::string(array) + "[" + std::to_string(q) + "]"; }

void checkArray(const char* name, const size_t* array) {
  if (array == nullptr) throwInvalidArgument(name, "is NULL");
}

// One buffer's blocks, counts[q] elements at displs[q] for each of n ranks:
// refuses NULL arrays and blocks that end past the largest byte address,
// and, where the call writes them, two non-empty blocks that overlap.
// Returns the extent: the end of the furthest block, in elements.
size_t checkBlocks(const char* countsName, const size_t* counts, const char* displsName, const size_t* displs, int n,
                   size_t elemBytes, bool written) {
  checkArray(countsName, counts);
  checkArray(displsName, displs);
  size_t extent = 0;
  std::vector<size_t> nonEmpty;
  for (size_t q = 0; q < static_cast<size_t>(n); ++q) {
    const size_t most = std::numeric_limits<size_t>::max() / elemBytes;  // elements a buffer can span
    if (counts[q] > 0 && (displs[q] > most || counts[q] > most - displs[q]))
      throwInvalidArgument(counts[q] > most ? countsName : displsName,
                           "has " + item(displsName, q) + " = " + std::to_string(displs[q]) + " and " +
                               item(countsName, q) + " = " + std::to_string(counts[q]) +
                               ": the block ends past the largest byte address");
    extent = std::max(extent, counts[q] ? displs[q] + counts[q] : 0);
    if (counts[q] > 0) nonEmpty.push_back(q);
  }
  if (!written) return extent;
  std::sort(nonEmpty.begin(), nonEmpty.end(), [&](size_t a, size_t b) { return displs[a] < displs[b]; });
  for (size_t k = 1; k < nonEmpty.size(); ++k) {
    const size_t a = nonEmpty[k - 1], b = nonEmpty[k];
    if (displs[a] + counts[a] > displs[b])
      throwInvalidArgument(displsName, "has overlapping blocks: " + item(displsName, a) + " = " +
                                           std::to_string(displs[a]) + " with " + item(countsName, a) + " = " +
                                           std::to_string(counts[a]) + " runs into " + item(displsName, b) + " = " +
                                           std::to_string(displs[b]));
  }
  return extent;
}

size_t sum(const size_t* counts, int n) { return std::accumulate(counts, counts + n, size_t{0}); }

std::vector<size_t> copyOf(const size_t* array, int n) { return std::vector<size_t>(array, array + n); }

void issue(const Checked& c, core::CollectiveCall call, const trncclCollConfig_t* config) {
  applyCollConfig(c, call, config);
  core::issueCollective(*c.comm, c.stream, std::move(call));
}

// Gather and scatter: the root's buffer holds every rank's block.
void rooted(bool gather, const void* sendbuff, void* recvbuff, size_t count, trncclDataType_t datatype, int root,
            trncclComm_t comm, trncclStream_t stream, const trncclCollConfig_t* config) {
  Checked c = checkCall(comm, stream, datatype, config);
  const int n = c.comm->size();
  checkRank("root", root, n);
  const size_t total = checkedBytes("count", count, c.elemBytes, n), block = count * c.elemBytes;
  if (count == 0) return;
  const bool isRoot = c.comm->rank() == root;
  if (gather || isRoot) checkBuffer("sendbuff", sendbuff);   // a scatter reads the root's only
  if (!gather || isRoot) checkBuffer("recvbuff", recvbuff);  // a gather writes the root's only
  bool inPlace = false;
  if (isRoot) {
    inPlace = gather ? sendbuff == at(recvbuff, block * root) : recvbuff == at(sendbuff, block * root);
    if (!inPlace) checkNoOverlap(sendbuff, gather ? block : total, recvbuff, gather ? total : block);
  }
  issue(c,
        callOf(c, gather ? Collective::Gather : Collective::Scatter, count, datatype, trncclSum, root, sendbuff,
               recvbuff, inPlace),
        config);
}

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclGather(const void* sendbuff, void* recvbuff, size_t count,
                                                  trncclDataType_t datatype, int root, trncclComm_t comm,
                                                  trncclStream_t stream) {
  return guarded("trncclGather", comm,
                 [&] { rooted(true, sendbuff, recvbuff, count, datatype, root, comm, stream, nullptr); });
}

extern "C" TRNCCL_API trncclResult_t trncclGatherConfig(const void* sendbuff, void* recvbuff, size_t count,
                                                        trncclDataType_t datatype, int root, trncclComm_t comm,
                                                        trncclStream_t stream, const trncclCollConfig_t* config) {
  return guarded("trncclGatherConfig", comm,
                 [&] { rooted(true, sendbuff, recvbuff, count, datatype, root, comm, stream, config); });
}

extern "C" TRNCCL_API trncclResult_t trncclScatter(const void* sendbuff, void* recvbuff, size_t count,
                                                   trncclDataType_t datatype, int root, trncclComm_t comm,
                                                   trncclStream_t stream) {
  return guarded("trncclScatter", comm,
                 [&] { rooted(false, sendbuff, recvbuff, count, datatype, root, comm, stream, nullptr); });
}

extern "C" TRNCCL_API trncclResult_t trncclScatterConfig(const void* sendbuff, void* recvbuff, size_t count,
                                                         trncclDataType_t datatype, int root, trncclComm_t comm,
                                                         trncclStream_t stream, const trncclCollConfig_t* config) {
  return guarded("trncclScatterConfig", comm,
                 [&] { rooted(false, sendbuff, recvbuff, count, datatype, root, comm, stream, config); });
}

namespace {

void doAlltoAllv(const void* sendbuff, const size_t sendcounts[], const size_t sdispls[], void* recvbuff,
                 const size_t recvcounts[], const size_t rdispls[], trncclDataType_t datatype, trncclComm_t comm,
                 trncclStream_t stream, const trncclCollConfig_t* config) {
  Checked c = checkCall(comm, stream, datatype, config);
  const int n = c.comm->size(), r = c.comm->rank();
  const size_t sendEnd = checkBlocks("sendcounts", sendcounts, "sdispls", sdispls, n, c.elemBytes, false);
  const size_t recvEnd = checkBlocks("recvcounts", recvcounts, "rdispls", rdispls, n, c.elemBytes, true);
  if (sendcounts[r] != recvcounts[r])
    throwInvalidArgument("recvcounts", "has " + item("recvcounts", r) + " = " + std::to_string(recvcounts[r]) +
                                           " but " + item("sendcounts", r) + " = " + std::to_string(sendcounts[r]) +
                                           ": this rank's block to itself must be as long both ways");
  if (sendEnd > 0) checkBuffer("sendbuff", sendbuff);
  if (recvEnd > 0) checkBuffer("recvbuff", recvbuff);
  if (overlaps(sendbuff, sendEnd * c.elemBytes, recvbuff, recvEnd * c.elemBytes))
    throwInvalidArgument("recvbuff", "overlaps sendbuff; all-to-all-v has no in-place form");
  // Issued even when this rank moves nothing: its peers' calls count in
  // the same sequence.
  core::CollectiveCall call =
      callOf(c, Collective::AllToAllV, sum(sendcounts, n), datatype, trncclSum, 0, sendbuff, recvbuff, false);
  call.args.v = std::make_shared<const trnccl::algo::VarCounts>(
      trnccl::algo::VarCounts{copyOf(sendcounts, n), copyOf(sdispls, n), copyOf(recvcounts, n), copyOf(rdispls, n)});
  issue(c, std::move(call), config);
}

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclAlltoAllv(const void* sendbuff, const size_t sendcounts[],
                                                     const size_t sdispls[], void* recvbuff, const size_t recvcounts[],
                                                     const size_t rdispls[], trncclDataType_t datatype,
                                                     trncclComm_t comm, trncclStream_t stream) {
  return guarded("trncclAlltoAllv", comm, [&] {
    doAlltoAllv(sendbuff, sendcounts, sdispls, recvbuff, recvcounts, rdispls, datatype, comm, stream, nullptr);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclAlltoAllvConfig(const void* sendbuff, const size_t sendcounts[],
                                                           const size_t sdispls[], void* recvbuff,
                                                           const size_t recvcounts[], const size_t rdispls[],
                                                           trncclDataType_t datatype, trncclComm_t comm,
                                                           trncclStream_t stream, const trncclCollConfig_t* config) {
  return guarded("trncclAlltoAllvConfig", comm, [&] {
    doAlltoAllv(sendbuff, sendcounts, sdispls, recvbuff, recvcounts, rdispls, datatype, comm, stream, config);
  });
}

namespace {

void doAllGatherV(const void* sendbuff, size_t sendcount, void* recvbuff, const size_t recvcounts[],
                  const size_t displs[], trncclDataType_t datatype, trncclComm_t comm, trncclStream_t stream,
                  const trncclCollConfig_t* config) {
  Checked c = checkCall(comm, stream, datatype, config);
  const int n = c.comm->size(), r = c.comm->rank();
  const size_t end = checkBlocks("recvcounts", recvcounts, "displs", displs, n, c.elemBytes, true);
  if (sendcount != recvcounts[r])
    throwInvalidArgument("sendcount", "= " + std::to_string(sendcount) + " but " + item("recvcounts", r) + " = " +
                                          std::to_string(recvcounts[r]) + ": they must be equal");
  if (end == 0) return;  // every rank's blocks are empty: the same no-op everywhere
  if (sendcount > 0) checkBuffer("sendbuff", sendbuff);
  checkBuffer("recvbuff", recvbuff);
  const bool inPlace = sendcount > 0 && sendbuff == at(recvbuff, displs[r] * c.elemBytes);
  if (!inPlace) checkNoOverlap(sendbuff, sendcount * c.elemBytes, recvbuff, end * c.elemBytes);
  core::CollectiveCall call =
      callOf(c, Collective::AllGatherV, sendcount, datatype, trncclSum, 0, sendbuff, recvbuff, inPlace);
  call.args.v = std::make_shared<const trnccl::algo::VarCounts>(
      trnccl::algo::VarCounts{{}, {}, copyOf(recvcounts, n), copyOf(displs, n)});
  issue(c, std::move(call), config);
}

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclAllGatherV(const void* sendbuff, size_t sendcount, void* recvbuff,
                                                      const size_t recvcounts[], const size_t displs[],
                                                      trncclDataType_t datatype, trncclComm_t comm,
                                                      trncclStream_t stream) {
  return guarded("trncclAllGatherV", comm, [&] {
    doAllGatherV(sendbuff, sendcount, recvbuff, recvcounts, displs, datatype, comm, stream, nullptr);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclAllGatherVConfig(const void* sendbuff, size_t sendcount, void* recvbuff,
                                                            const size_t recvcounts[], const size_t displs[],
                                                            trncclDataType_t datatype, trncclComm_t comm,
                                                            trncclStream_t stream, const trncclCollConfig_t* config) {
  return guarded("trncclAllGatherVConfig", comm, [&] {
    doAllGatherV(sendbuff, sendcount, recvbuff, recvcounts, displs, datatype, comm, stream, config);
  });
}

namespace {

void doReduceScatterV(const void* sendbuff, const size_t sendcounts[], const size_t displs[], void* recvbuff,
                      size_t recvcount, trncclDataType_t datatype, trncclRedOp_t op, trncclComm_t comm,
                      trncclStream_t stream, const trncclCollConfig_t* config) {
  Checked c = checkCall(comm, stream, datatype, config);
  checkOp(c, op);
  const int n = c.comm->size(), r = c.comm->rank();
  // The result lands in this rank's block in place, so blocks must not overlap.
  const size_t end = checkBlocks("sendcounts", sendcounts, "displs", displs, n, c.elemBytes, true);
  if (recvcount != sendcounts[r])
    throwInvalidArgument("recvcount", "= " + std::to_string(recvcount) + " but " + item("sendcounts", r) + " = " +
                                          std::to_string(sendcounts[r]) + ": they must be equal");
  if (end == 0) return;
  checkBuffer("sendbuff", sendbuff);
  if (recvcount > 0) checkBuffer("recvbuff", recvbuff);
  const bool inPlace = recvcount > 0 && recvbuff == at(sendbuff, displs[r] * c.elemBytes);
  if (!inPlace) checkNoOverlap(sendbuff, end * c.elemBytes, recvbuff, recvcount * c.elemBytes);
  core::CollectiveCall call =
      callOf(c, Collective::ReduceScatterV, recvcount, datatype, op, 0, sendbuff, recvbuff, inPlace);
  call.args.v = std::make_shared<const trnccl::algo::VarCounts>(
      trnccl::algo::VarCounts{copyOf(sendcounts, n), copyOf(displs, n), {}, {}});
  issue(c, std::move(call), config);
}

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclReduceScatterV(const void* sendbuff, const size_t sendcounts[],
                                                          const size_t displs[], void* recvbuff, size_t recvcount,
                                                          trncclDataType_t datatype, trncclRedOp_t op,
                                                          trncclComm_t comm, trncclStream_t stream) {
  return guarded("trncclReduceScatterV", comm, [&] {
    doReduceScatterV(sendbuff, sendcounts, displs, recvbuff, recvcount, datatype, op, comm, stream, nullptr);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclReduceScatterVConfig(const void* sendbuff, const size_t sendcounts[],
                                                                const size_t displs[], void* recvbuff, size_t recvcount,
                                                                trncclDataType_t datatype, trncclRedOp_t op,
                                                                trncclComm_t comm, trncclStream_t stream,
                                                                const trncclCollConfig_t* config) {
  return guarded("trncclReduceScatterVConfig", comm, [&] {
    doReduceScatterV(sendbuff, sendcounts, displs, recvbuff, recvcount, datatype, op, comm, stream, config);
  });
}

namespace {

void checkPeer(const char* argument, int peer, int nranks) {
  if (peer < -1 || peer >= nranks)
    throwInvalidArgument(
        argument, "is " + std::to_string(peer) + "; it must be -1 (none) or in [0, " + std::to_string(nranks) + ")");
}

void doPermute(const void* sendbuff, void* recvbuff, size_t count, trncclDataType_t datatype, int sendPeer,
               int recvPeer, trncclComm_t comm, trncclStream_t stream, const trncclCollConfig_t* config) {
  Checked c = checkCall(comm, stream, datatype, config);
  const int n = c.comm->size(), r = c.comm->rank();
  checkPeer("sendPeer", sendPeer, n);
  checkPeer("recvPeer", recvPeer, n);
  if ((sendPeer == r) != (recvPeer == r))
    throwInvalidArgument(sendPeer == r ? "recvPeer" : "sendPeer",
                         "is " + std::to_string(sendPeer == r ? recvPeer : sendPeer) + " but " +
                             (sendPeer == r ? "sendPeer" : "recvPeer") + " is this rank (" + std::to_string(r) +
                             "): a rank that sends to itself receives from itself");
  const size_t bytes = checkedBytes("count", count, c.elemBytes, 1);
  const bool sends = sendPeer >= 0 && count > 0, receives = recvPeer >= 0 && count > 0;
  if (sends) checkBuffer("sendbuff", sendbuff);
  if (receives) checkBuffer("recvbuff", recvbuff);
  const bool inPlace = sends && receives && sendbuff == recvbuff;
  if (sends && receives && !inPlace) checkNoOverlap(sendbuff, bytes, recvbuff, bytes);
  // Issued even with nothing to move: each rank's count and peers are its own.
  core::CollectiveCall call =
      callOf(c, Collective::Permute, count, datatype, trncclSum, 0, sendbuff, recvbuff, inPlace);
  call.args.sendPeer = sendPeer;
  call.args.recvPeer = recvPeer;
  issue(c, std::move(call), config);
}

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclPermute(const void* sendbuff, void* recvbuff, size_t count,
                                                   trncclDataType_t datatype, int sendPeer, int recvPeer,
                                                   trncclComm_t comm, trncclStream_t stream) {
  return guarded("trncclPermute", comm,
                 [&] { doPermute(sendbuff, recvbuff, count, datatype, sendPeer, recvPeer, comm, stream, nullptr); });
}

extern "C" TRNCCL_API trncclResult_t trncclPermuteConfig(const void* sendbuff, void* recvbuff, size_t count,
                                                         trncclDataType_t datatype, int sendPeer, int recvPeer,
                                                         trncclComm_t comm, trncclStream_t stream,
                                                         const trncclCollConfig_t* config) {
  return guarded("trncclPermuteConfig", comm,
                 [&] { doPermute(sendbuff, recvbuff, count, datatype, sendPeer, recvPeer, comm, stream, config); });
}
