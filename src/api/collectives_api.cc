// Collective, point-to-point and group entry points. Each validates every
// argument (naming the bad one), then hands the call to core::issue*.
#include <cstdint>
#include <limits>

#include "api/guard.h"
#include "api/handles.h"
#include "base/datatype.h"
#include "core/group.h"

using trnccl::throwInvalidArgument;
using trnccl::algo::Collective;
using trnccl::api::guarded;
namespace core = trnccl::core;

namespace {

// What every collective entry point checks before anything else.
struct Checked {
  core::Communicator* comm;
  trnccl::runtime::Stream* stream;
  size_t elemBytes;
};

Checked checkCall(trncclComm_t comm, trncclStream_t stream, trncclDataType_t datatype) {
  core::Communicator& c = trnccl::api::usableComm(comm);
  trnccl::runtime::Stream* s = trnccl::api::streamOf(stream);
  if (!trnccl::validType(datatype))
    throwInvalidArgument("datatype", "is " + std::to_string(static_cast<int>(datatype)) + ", not a trnccl data type");
  return Checked{&c, s, trnccl::typeSize(datatype)};
}

void checkOp(trncclRedOp_t op) {
  if (!trnccl::validOp(op))
    throwInvalidArgument("op", "is " + std::to_string(static_cast<int>(op)) + ", not a trncclRedOp_t");
}

void checkRank(const char* argument, int value, int nranks) {
  if (value < 0 || value >= nranks)
    throwInvalidArgument(argument,
                         "is " + std::to_string(value) + "; it must be in [0, " + std::to_string(nranks) + ")");
}

// Bytes of `count` elements times `blocks`, refusing overflow.
size_t checkedBytes(const char* argument, size_t count, size_t elemBytes, size_t blocks) {
  if (count > std::numeric_limits<size_t>::max() / elemBytes / blocks)
    throwInvalidArgument(argument, "= " + std::to_string(count) + " elements overflows the byte size");
  return count * elemBytes * blocks;
}

void checkBuffer(const char* argument, const void* buffer) {
  if (buffer == nullptr) throwInvalidArgument(argument, "is NULL");
}

// Buffers may coincide exactly where the call allows in-place use, and must
// not overlap otherwise.
void checkNoOverlap(const void* send, size_t sendBytes, const void* recv, size_t recvBytes) {
  const auto s = reinterpret_cast<uintptr_t>(send), r = reinterpret_cast<uintptr_t>(recv);
  if (s < r + recvBytes && r < s + sendBytes)
    throwInvalidArgument("recvbuff", "overlaps sendbuff without being the in-place layout");
}

void issue(const Checked& c, Collective collective, size_t count, trncclDataType_t type, trncclRedOp_t op, int root,
           const void* send, void* recv, bool inPlace) {
  core::CollectiveCall call;
  call.args.collective = collective;
  call.args.rank = c.comm->rank();
  call.args.nranks = c.comm->size();
  call.args.count = count;
  call.args.type = type;
  call.args.op = op;
  call.args.root = root;
  call.args.inPlace = inPlace;
  call.send = send;
  call.recv = recv;
  core::issueCollective(*c.comm, c.stream, call);
}

const char* at(const void* p, size_t bytes) { return static_cast<const char*>(p) + bytes; }

}  // namespace

extern "C" TRNCCL_API trncclResult_t trncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                                                     trncclDataType_t datatype, trncclRedOp_t op, trncclComm_t comm,
                                                     trncclStream_t stream) {
  return guarded("trncclAllReduce", comm, [&] {
    Checked c = checkCall(comm, stream, datatype);
    checkOp(op);
    const size_t bytes = checkedBytes("count", count, c.elemBytes, 1);
    if (count == 0) return;
    checkBuffer("sendbuff", sendbuff);
    checkBuffer("recvbuff", recvbuff);
    const bool inPlace = sendbuff == recvbuff;
    if (!inPlace) checkNoOverlap(sendbuff, bytes, recvbuff, bytes);
    issue(c, Collective::AllReduce, count, datatype, op, 0, sendbuff, recvbuff, inPlace);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                                                     trncclDataType_t datatype, trncclComm_t comm,
                                                     trncclStream_t stream) {
  return guarded("trncclAllGather", comm, [&] {
    Checked c = checkCall(comm, stream, datatype);
    const size_t total = checkedBytes("sendcount", sendcount, c.elemBytes, c.comm->size());
    if (sendcount == 0) return;
    checkBuffer("sendbuff", sendbuff);
    checkBuffer("recvbuff", recvbuff);
    const size_t block = sendcount * c.elemBytes;
    const bool inPlace = sendbuff == at(recvbuff, block * c.comm->rank());
    if (!inPlace) checkNoOverlap(sendbuff, block, recvbuff, total);
    issue(c, Collective::AllGather, sendcount, datatype, trncclSum, 0, sendbuff, recvbuff, inPlace);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                                                         trncclDataType_t datatype, trncclRedOp_t op, trncclComm_t comm,
                                                         trncclStream_t stream) {
  return guarded("trncclReduceScatter", comm, [&] {
    Checked c = checkCall(comm, stream, datatype);
    checkOp(op);
    const size_t total = checkedBytes("recvcount", recvcount, c.elemBytes, c.comm->size());
    if (recvcount == 0) return;
    checkBuffer("sendbuff", sendbuff);
    checkBuffer("recvbuff", recvbuff);
    const size_t block = recvcount * c.elemBytes;
    const bool inPlace = recvbuff == at(sendbuff, block * c.comm->rank());
    if (!inPlace) checkNoOverlap(sendbuff, total, recvbuff, block);
    issue(c, Collective::ReduceScatter, recvcount, datatype, op, 0, sendbuff, recvbuff, inPlace);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                                                     trncclDataType_t datatype, int root, trncclComm_t comm,
                                                     trncclStream_t stream) {
  return guarded("trncclBroadcast", comm, [&] {
    Checked c = checkCall(comm, stream, datatype);
    checkRank("root", root, c.comm->size());
    const size_t bytes = checkedBytes("count", count, c.elemBytes, 1);
    if (count == 0) return;
    const bool isRoot = c.comm->rank() == root;
    if (isRoot) checkBuffer("sendbuff", sendbuff);  // only the root's is read
    checkBuffer("recvbuff", recvbuff);
    const bool inPlace = sendbuff == recvbuff;
    if (isRoot && !inPlace) checkNoOverlap(sendbuff, bytes, recvbuff, bytes);
    issue(c, Collective::Broadcast, count, datatype, trncclSum, root, sendbuff, recvbuff, inPlace);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclReduce(const void* sendbuff, void* recvbuff, size_t count,
                                                  trncclDataType_t datatype, trncclRedOp_t op, int root,
                                                  trncclComm_t comm, trncclStream_t stream) {
  return guarded("trncclReduce", comm, [&] {
    Checked c = checkCall(comm, stream, datatype);
    checkOp(op);
    checkRank("root", root, c.comm->size());
    const size_t bytes = checkedBytes("count", count, c.elemBytes, 1);
    if (count == 0) return;
    const bool isRoot = c.comm->rank() == root;
    checkBuffer("sendbuff", sendbuff);
    if (isRoot) checkBuffer("recvbuff", recvbuff);  // only the root's is written
    const bool inPlace = sendbuff == recvbuff;
    if (isRoot && !inPlace) checkNoOverlap(sendbuff, bytes, recvbuff, bytes);
    issue(c, Collective::Reduce, count, datatype, op, root, sendbuff, recvbuff, inPlace);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclAlltoAll(const void* sendbuff, void* recvbuff, size_t count,
                                                    trncclDataType_t datatype, trncclComm_t comm,
                                                    trncclStream_t stream) {
  return guarded("trncclAlltoAll", comm, [&] {
    Checked c = checkCall(comm, stream, datatype);
    const size_t total = checkedBytes("count", count, c.elemBytes, c.comm->size());
    if (count == 0) return;
    checkBuffer("sendbuff", sendbuff);
    checkBuffer("recvbuff", recvbuff);
    const bool inPlace = sendbuff == recvbuff;
    if (!inPlace) checkNoOverlap(sendbuff, total, recvbuff, total);
    issue(c, Collective::AllToAll, count, datatype, trncclSum, 0, sendbuff, recvbuff, inPlace);
  });
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
