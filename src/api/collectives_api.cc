// The first-generation collectives, point-to-point and group entry points. Each validates every
// argument (naming the bad one), then hands the call to core::issue*. Each collective has a
// *Config twin (NCCL 2.31's per-call configuration, api/coll_config.h) sharing its body.
#include "api/argument_checks.h"
#include "api/coll_config.h"
#include "api/guard.h"

using namespace trnccl::api;
using trnccl::algo::Collective;
namespace core = trnccl::core;

namespace {

void issue(const Checked& c, Collective collective, size_t count, trncclDataType_t type, trncclRedOp_t op, int root,
           const void* send, void* recv, bool inPlace, const trncclCollConfig_t* config) {
  core::CollectiveCall call = callOf(c, collective, count, type, op, root, send, recv, inPlace);
  applyCollConfig(c, call, config);
  core::issueCollective(*c.comm, c.stream, std::move(call));
}

void doAllReduce(const void* sendbuff, void* recvbuff, size_t count, trncclDataType_t datatype, trncclRedOp_t op,
                 trncclComm_t comm, trncclStream_t stream, const trncclCollConfig_t* config) {
  Checked c = checkCall(comm, stream, datatype, config);
  checkOp(c, op);
  const size_t bytes = checkedBytes("count", count, c.elemBytes, 1);
  if (count == 0) return;
  checkBuffer("sendbuff", sendbuff);
  checkBuffer("recvbuff", recvbuff);
  const bool inPlace = sendbuff == recvbuff;
  if (!inPlace) checkNoOverlap(sendbuff, bytes, recvbuff, bytes);
  issue(c, Collective::AllReduce, count, datatype, op, 0, sendbuff, recvbuff, inPlace, config);
}

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                                                     trncclDataType_t datatype, trncclRedOp_t op, trncclComm_t comm,
                                                     trncclStream_t stream) {
  return guarded("trncclAllReduce", comm,
                 [&] { doAllReduce(sendbuff, recvbuff, count, datatype, op, comm, stream, nullptr); });
}

extern "C" TRNCCL_API trncclResult_t trncclAllReduceConfig(const void* sendbuff, void* recvbuff, size_t count,
                                                           trncclDataType_t datatype, trncclRedOp_t op,
                                                           trncclComm_t comm, trncclStream_t stream,
                                                           const trncclCollConfig_t* config) {
  return guarded("trncclAllReduceConfig", comm,
                 [&] { doAllReduce(sendbuff, recvbuff, count, datatype, op, comm, stream, config); });
}

namespace {

void doAllGather(const void* sendbuff, void* recvbuff, size_t sendcount, trncclDataType_t datatype, trncclComm_t comm,
                 trncclStream_t stream, const trncclCollConfig_t* config) {
  Checked c = checkCall(comm, stream, datatype, config);
  const size_t total = checkedBytes("sendcount", sendcount, c.elemBytes, c.comm->size());
  if (sendcount == 0) return;
  checkBuffer("sendbuff", sendbuff);
  checkBuffer("recvbuff", recvbuff);
  const size_t block = sendcount * c.elemBytes;
  const bool inPlace = sendbuff == at(recvbuff, block * c.comm->rank());
  if (!inPlace) checkNoOverlap(sendbuff, block, recvbuff, total);
  issue(c, Collective::AllGather, sendcount, datatype, trncclSum, 0, sendbuff, recvbuff, inPlace, config);
}

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                                                     trncclDataType_t datatype, trncclComm_t comm,
                                                     trncclStream_t stream) {
  return guarded("trncclAllGather", comm,
                 [&] { doAllGather(sendbuff, recvbuff, sendcount, datatype, comm, stream, nullptr); });
}

extern "C" TRNCCL_API trncclResult_t trncclAllGatherConfig(const void* sendbuff, void* recvbuff, size_t sendcount,
                                                           trncclDataType_t datatype, trncclComm_t comm,
                                                           trncclStream_t stream, const trncclCollConfig_t* config) {
  return guarded("trncclAllGatherConfig", comm,
                 [&] { doAllGather(sendbuff, recvbuff, sendcount, datatype, comm, stream, config); });
}

namespace {

void doReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount, trncclDataType_t datatype,
                     trncclRedOp_t op, trncclComm_t comm, trncclStream_t stream, const trncclCollConfig_t* config) {
  Checked c = checkCall(comm, stream, datatype, config);
  checkOp(c, op);
  const size_t total = checkedBytes("recvcount", recvcount, c.elemBytes, c.comm->size());
  if (recvcount == 0) return;
  checkBuffer("sendbuff", sendbuff);
  checkBuffer("recvbuff", recvbuff);
  const size_t block = recvcount * c.elemBytes;
  const bool inPlace = recvbuff == at(sendbuff, block * c.comm->rank());
  if (!inPlace) checkNoOverlap(sendbuff, total, recvbuff, block);
  issue(c, Collective::ReduceScatter, recvcount, datatype, op, 0, sendbuff, recvbuff, inPlace, config);
}

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                                                         trncclDataType_t datatype, trncclRedOp_t op, trncclComm_t comm,
                                                         trncclStream_t stream) {
  return guarded("trncclReduceScatter", comm,
                 [&] { doReduceScatter(sendbuff, recvbuff, recvcount, datatype, op, comm, stream, nullptr); });
}

extern "C" TRNCCL_API trncclResult_t trncclReduceScatterConfig(const void* sendbuff, void* recvbuff, size_t recvcount,
                                                               trncclDataType_t datatype, trncclRedOp_t op,
                                                               trncclComm_t comm, trncclStream_t stream,
                                                               const trncclCollConfig_t* config) {
  return guarded("trncclReduceScatterConfig", comm,
                 [&] { doReduceScatter(sendbuff, recvbuff, recvcount, datatype, op, comm, stream, config); });
}

namespace {

void doBroadcast(const void* sendbuff, void* recvbuff, size_t count, trncclDataType_t datatype, int root,
                 trncclComm_t comm, trncclStream_t stream, const trncclCollConfig_t* config) {
  Checked c = checkCall(comm, stream, datatype, config);
  checkRank("root", root, c.comm->size());
  const size_t bytes = checkedBytes("count", count, c.elemBytes, 1);
  if (count == 0) return;
  const bool isRoot = c.comm->rank() == root;
  if (isRoot) checkBuffer("sendbuff", sendbuff);  // only the root's is read
  checkBuffer("recvbuff", recvbuff);
  const bool inPlace = sendbuff == recvbuff;
  if (isRoot && !inPlace) checkNoOverlap(sendbuff, bytes, recvbuff, bytes);
  issue(c, Collective::Broadcast, count, datatype, trncclSum, root, sendbuff, recvbuff, inPlace, config);
}

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                                                     trncclDataType_t datatype, int root, trncclComm_t comm,
                                                     trncclStream_t stream) {
  return guarded("trncclBroadcast", comm,
                 [&] { doBroadcast(sendbuff, recvbuff, count, datatype, root, comm, stream, nullptr); });
}

extern "C" TRNCCL_API trncclResult_t trncclBroadcastConfig(const void* sendbuff, void* recvbuff, size_t count,
                                                           trncclDataType_t datatype, int root, trncclComm_t comm,
                                                           trncclStream_t stream, const trncclCollConfig_t* config) {
  return guarded("trncclBroadcastConfig", comm,
                 [&] { doBroadcast(sendbuff, recvbuff, count, datatype, root, comm, stream, config); });
}

namespace {

void doReduce(const void* sendbuff, void* recvbuff, size_t count, trncclDataType_t datatype, trncclRedOp_t op, int root,
              trncclComm_t comm, trncclStream_t stream, const trncclCollConfig_t* config) {
  Checked c = checkCall(comm, stream, datatype, config);
  checkOp(c, op);
  checkRank("root", root, c.comm->size());
  const size_t bytes = checkedBytes("count", count, c.elemBytes, 1);
  if (count == 0) return;
  const bool isRoot = c.comm->rank() == root;
  checkBuffer("sendbuff", sendbuff);
  if (isRoot) checkBuffer("recvbuff", recvbuff);  // only the root's is written
  const bool inPlace = sendbuff == recvbuff;
  if (isRoot && !inPlace) checkNoOverlap(sendbuff, bytes, recvbuff, bytes);
  issue(c, Collective::Reduce, count, datatype, op, root, sendbuff, recvbuff, inPlace, config);
}

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclReduce(const void* sendbuff, void* recvbuff, size_t count,
                                                  trncclDataType_t datatype, trncclRedOp_t op, int root,
                                                  trncclComm_t comm, trncclStream_t stream) {
  return guarded("trncclReduce", comm,
                 [&] { doReduce(sendbuff, recvbuff, count, datatype, op, root, comm, stream, nullptr); });
}

extern "C" TRNCCL_API trncclResult_t trncclReduceConfig(const void* sendbuff, void* recvbuff, size_t count,
                                                        trncclDataType_t datatype, trncclRedOp_t op, int root,
                                                        trncclComm_t comm, trncclStream_t stream,
                                                        const trncclCollConfig_t* config) {
  return guarded("trncclReduceConfig", comm,
                 [&] { doReduce(sendbuff, recvbuff, count, datatype, op, root, comm, stream, config); });
}

namespace {

void doAlltoAll(const void* sendbuff, void* recvbuff, size_t count, trncclDataType_t datatype, trncclComm_t comm,
                trncclStream_t stream, const trncclCollConfig_t* config) {
  Checked c = checkCall(comm, stream, datatype, config);
  const size_t total = checkedBytes("count", count, c.elemBytes, c.comm->size());
  if (count == 0) return;
  checkBuffer("sendbuff", sendbuff);
  checkBuffer("recvbuff", recvbuff);
  const bool inPlace = sendbuff == recvbuff;
  if (!inPlace) checkNoOverlap(sendbuff, total, recvbuff, total);
  issue(c, Collective::AllToAll, count, datatype, trncclSum, 0, sendbuff, recvbuff, inPlace, config);
}

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclAlltoAll(const void* sendbuff, void* recvbuff, size_t count,
                                                    trncclDataType_t datatype, trncclComm_t comm,
                                                    trncclStream_t stream) {
  return guarded("trncclAlltoAll", comm,
                 [&] { doAlltoAll(sendbuff, recvbuff, count, datatype, comm, stream, nullptr); });
}

extern "C" TRNCCL_API trncclResult_t trncclAlltoAllConfig(const void* sendbuff, void* recvbuff, size_t count,
                                                          trncclDataType_t datatype, trncclComm_t comm,
                                                          trncclStream_t stream, const trncclCollConfig_t* config) {
  return guarded("trncclAlltoAllConfig", comm,
                 [&] { doAlltoAll(sendbuff, recvbuff, count, datatype, comm, stream, config); });
}

namespace {

void issueP2P(bool send, void* buffer, size_t count, trncclDataType_t datatype, int peer, trncclComm_t comm,
              trncclStream_t stream) {
  Checked c = checkCall(comm, stream, datatype);
  checkRank("peer", peer, c.comm->size());
  const size_t bytes = checkedBytes("count", count, c.elemBytes, 1);
  if (count == 0) return;
  checkBuffer(send ? "sendbuff" : "recvbuff", buffer);
  core::P2PCall call;
  call.op.send = send;
  call.op.peer = peer;
  call.op.bytes = bytes;
  call.buffer = buffer;
  core::issueP2P(*c.comm, c.stream, call);
}

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclSend(const void* sendbuff, size_t count, trncclDataType_t datatype, int peer,
                                                trncclComm_t comm, trncclStream_t stream) {
  return guarded("trncclSend", comm,
                 [&] { issueP2P(true, const_cast<void*>(sendbuff), count, datatype, peer, comm, stream); });
}

extern "C" TRNCCL_API trncclResult_t trncclRecv(void* recvbuff, size_t count, trncclDataType_t datatype, int peer,
                                                trncclComm_t comm, trncclStream_t stream) {
  return guarded("trncclRecv", comm, [&] { issueP2P(false, recvbuff, count, datatype, peer, comm, stream); });
}

extern "C" TRNCCL_API trncclResult_t trncclProbe(int* source, trncclComm_t comm) {
  return guarded("trncclProbe", comm, [&] {
    core::Communicator& c = usableComm(comm);
    if (source == nullptr) trnccl::throwInvalidArgument("source", "is NULL");
    if (core::inGroup())
      trnccl::throwError(trncclInvalidUsage,
                         "trncclProbe inside a group: a group's receives are issued at trncclGroupEnd");
    *source = c.probe();
  });
}
