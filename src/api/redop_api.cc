// trncclRedOpCreatePreMulSum and trncclRedOpDestroy: user-defined reduction
// operators of a communicator (NCCL's shape and numbering). Collectives find
// them through checkOp().
#include <cstring>
#include <string>

#include "api/guard.h"
#include "api/user_red_ops.h"
#include "base/datatype.h"

using namespace trnccl;

extern "C" TRNCCL_API trncclResult_t trncclRedOpCreatePreMulSum(trncclRedOp_t* op, void* scalar,
                                                                trncclDataType_t datatype,
                                                                trncclScalarResidence_t residence, trncclComm_t comm) {
  return api::guarded("trncclRedOpCreatePreMulSum", comm, [&] {
    api::liveComm(comm);
    if (op == nullptr) throwInvalidArgument("op", "is NULL");
    if (scalar == nullptr) throwInvalidArgument("scalar", "is NULL");
    if (!validType(datatype))
      throwInvalidArgument("datatype", "is " + std::to_string(static_cast<int>(datatype)) + ", not a trnccl data type");
    api::PreMulSumOp created{datatype, {}};
    switch (residence) {
      case trncclScalarHostImmediate:
        std::memcpy(created.scalar.value.data(), scalar, typeSize(datatype));
        break;
      case trncclScalarDevice:
        created.scalar.pointer = scalar;
        break;
      default:
        throwInvalidArgument("residence", "is " + std::to_string(static_cast<int>(residence)) +
                                              ", neither trncclScalarDevice (0) nor trncclScalarHostImmediate (1)");
    }
    *op = comm->redOps.create(created);
  });
}

extern "C" TRNCCL_API trncclResult_t trncclRedOpDestroy(trncclRedOp_t op, trncclComm_t comm) {
  return api::guarded("trncclRedOpDestroy", comm, [&] {
    api::liveComm(comm);
    comm->redOps.destroy(op);
  });
}
