// The argument checks every collective entry point shares: each throws
// Error(InvalidArgument) with a message naming the argument.
#pragma once

#include <cstddef>
#include <optional>

#include "core/group.h"
#include "trnccl/trnccl.h"

namespace trnccl::api {

// What every collective entry point checks before anything else.
struct Checked {
  core::Communicator* comm;
  runtime::Stream* stream;
  size_t elemBytes;
  trncclComm_t handle;
  trncclDataType_t datatype;
  std::optional<core::PreMulScalar> preMul;  // set by checkOp for a PreMulSum operator
};

Checked checkCall(trncclComm_t comm, trncclStream_t stream, trncclDataType_t datatype);
// A collective's: its per-call configuration (NULL: none) first, then as above.
Checked checkCall(trncclComm_t comm, trncclStream_t stream, trncclDataType_t datatype,
                  const trncclCollConfig_t* config);
// A built-in operator, or one trncclRedOpCreatePreMulSum made for this
// communicator and the call's datatype (then kept in c.preMul).
void checkOp(Checked& c, trncclRedOp_t op);
void checkRank(const char* argument, int value, int nranks);
// Bytes of `count` elements times `blocks`, refusing overflow.
size_t checkedBytes(const char* argument, size_t count, size_t elemBytes, size_t blocks);
void checkBuffer(const char* argument, const void* buffer);
bool overlaps(const void* a, size_t aBytes, const void* b, size_t bBytes);
// Buffers may coincide exactly where the call allows in-place use, and must
// not overlap otherwise.
void checkNoOverlap(const void* send, size_t sendBytes, const void* recv, size_t recvBytes);
const char* at(const void* p, size_t bytes);

// The call's header filled in: this rank, the group, what it is (a PreMulSum
// as trncclSum with its scalar).
core::CollectiveCall callOf(const Checked& c, algo::Collective collective, size_t count, trncclDataType_t type,
                            trncclRedOp_t op, int root, const void* send, void* recv, bool inPlace);

}  // namespace trnccl::api
