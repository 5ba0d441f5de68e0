#include "api/argument_checks.h"

#include <cstdint>
#include <string>

#include "api/coll_config.h"
#include "api/handles.h"
#include "base/datatype.h"
#include "base/error.h"

namespace trnccl::api {

Checked checkCall(trncclComm_t comm, trncclStream_t stream, trncclDataType_t datatype) {
  core::Communicator& c = usableComm(comm);
  runtime::Stream* s = streamOf(stream);
  if (!validType(datatype))
    throwInvalidArgument("datatype", "is " + std::to_string(static_cast<int>(datatype)) + ", not a trnccl data type");
  return Checked{&c, s, typeSize(datatype), comm, datatype, std::nullopt};
}

Checked checkCall(trncclComm_t comm, trncclStream_t stream, trncclDataType_t datatype,
                  const trncclCollConfig_t* config) {
  checkCollConfig(config);
  return checkCall(comm, stream, datatype);
}

void checkOp(Checked& c, trncclRedOp_t op) {
  if (validOp(op)) return;
  const std::optional<PreMulSumOp> preMulSum = c.handle->redOps.find(op);
  if (!preMulSum)
    throwInvalidArgument("op", "is " + std::to_string(static_cast<int>(op)) +
                                   ", neither a built-in trncclRedOp_t nor an operator trncclRedOpCreatePreMulSum "
                                   "made for this communicator");
  if (preMulSum->datatype != c.datatype)
    throwInvalidArgument("datatype", std::string("is ") + typeName(c.datatype) + ", but op " + std::to_string(op) +
                                         " is a PreMulSum made for " + typeName(preMulSum->datatype));
  c.preMul = preMulSum->scalar;
}

void checkRank(const char* argument, int value, int nranks) {
  if (value < 0 || value >= nranks)
    throwInvalidArgument(argument,
                         "is " + std::to_string(value) + "; it must be in [0, " + std::to_string(nranks) + ")");
}

size_t checkedBytes(const char* argument, size_t count, size_t elemBytes, size_t blocks) {
  size_t bytes = 0;  // multiplied with overflow checks: two divisions were a tenth of the API's cost
  if (__builtin_mul_overflow(count, elemBytes, &bytes) || __builtin_mul_overflow(bytes, blocks, &bytes))
    throwInvalidArgument(argument, "= " + std::to_string(count) + " elements overflows the byte size");
  return bytes;
}

void checkBuffer(const char* argument, const void* buffer) {
  if (buffer == nullptr) throwInvalidArgument(argument, "is NULL");
}

bool overlaps(const void* a, size_t aBytes, const void* b, size_t bBytes) {
  const auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return aBytes > 0 && bBytes > 0 && x < y + bBytes && y < x + aBytes;  // an empty region overlaps nothing
}

void checkNoOverlap(const void* send, size_t sendBytes, const void* recv, size_t recvBytes) {
  if (overlaps(send, sendBytes, recv, recvBytes))
    throwInvalidArgument("recvbuff", "overlaps sendbuff without being the in-place layout");
}

const char* at(const void* p, size_t bytes) { return static_cast<const char*>(p) + bytes; }

core::CollectiveCall callOf(const Checked& c, algo::Collective collective, size_t count, trncclDataType_t type,
                            trncclRedOp_t op, int root, const void* send, void* recv, bool inPlace) {
  core::CollectiveCall call;
  call.args.collective = collective;
  call.args.rank = c.comm->rank();
  call.args.nranks = c.comm->size();
  call.args.count = count;
  call.args.type = type;
  call.args.op = c.preMul ? trncclSum : op;
  call.preMul = c.preMul;
  call.args.root = root;
  call.args.inPlace = inPlace;
  call.send = send;
  call.recv = recv;
  return call;
}

}  // namespace trnccl::api
