// TRNCCL_CHECK's fingerprints and the message that names ranks that disagree,
// against messages written out by hand.
#include <catch2/catch.hpp>
#include <vector>

#include "core/call_check.h"

using namespace trnccl;
using namespace trnccl::core;

namespace {

algo::CollectiveArgs call(algo::Collective collective, size_t count, trncclDataType_t type, trncclRedOp_t op,
                          int root = 0) {
  algo::CollectiveArgs a;
  a.collective = collective;
  a.count = count;
  a.type = type;
  a.op = op;
  a.root = root;
  return a;
}

}  // namespace

TEST_CASE("call check: ranks making the same call agree, whatever fields the call does not use", "[call-check]") {
  // A broadcast has no op, an all-reduce no root: neither may make ranks disagree.
  const CallFingerprint a = fingerprintOf(call(algo::Collective::Broadcast, 10, trncclInt32, trncclSum, 2), 7);
  const CallFingerprint b = fingerprintOf(call(algo::Collective::Broadcast, 10, trncclInt32, trncclMax, 2), 7);
  CHECK(describeDisagreement({a, b, a}).empty());
  const CallFingerprint c = fingerprintOf(call(algo::Collective::AllReduce, 10, trncclInt32, trncclSum, 0), 7);
  const CallFingerprint d = fingerprintOf(call(algo::Collective::AllReduce, 10, trncclInt32, trncclSum, 3), 7);
  CHECK(describeDisagreement({c, d}).empty());
  CHECK(describeDisagreement({c}).empty());
}

TEST_CASE("call check: a count that differs on one rank names the groups and the field", "[call-check]") {
  const CallFingerprint most = fingerprintOf(call(algo::Collective::AllReduce, 1024, trncclFloat32, trncclSum), 5);
  const CallFingerprint odd = fingerprintOf(call(algo::Collective::AllReduce, 512, trncclFloat32, trncclSum), 5);
  CHECK(describeDisagreement({most, most, most, odd}) ==
        "TRNCCL_CHECK: the ranks disagree on this call: ranks 0-2 called allreduce #5 of 1024 x float sum; "
        "rank 3 called allreduce #5 of 512 x float sum (differing: count)");
}

TEST_CASE("call check: different collectives, roots and types are named, and groups in order of their lowest rank",
          "[call-check]") {
  const CallFingerprint reduce = fingerprintOf(call(algo::Collective::Reduce, 8, trncclBfloat16, trncclMax, 1), 12);
  const CallFingerprint bcast = fingerprintOf(call(algo::Collective::Broadcast, 8, trncclBfloat16, trncclMax, 1), 12);
  CHECK(describeDisagreement({bcast, reduce, bcast}) ==
        "TRNCCL_CHECK: the ranks disagree on this call: ranks 0, 2 called broadcast #12 of 8 x bfloat16 root 1; "
        "rank 1 called reduce #12 of 8 x bfloat16 max root 1 (differing: collective, op)");
  const CallFingerprint root0 = fingerprintOf(call(algo::Collective::Broadcast, 8, trncclInt8, trncclSum, 0), 3);
  const CallFingerprint root1 = fingerprintOf(call(algo::Collective::Broadcast, 8, trncclInt8, trncclSum, 1), 3);
  CHECK(describeDisagreement({root0, root1}) ==
        "TRNCCL_CHECK: the ranks disagree on this call: rank 0 called broadcast #3 of 8 x int8 root 0; "
        "rank 1 called broadcast #3 of 8 x int8 root 1 (differing: root)");
  const CallFingerprint f32 = fingerprintOf(call(algo::Collective::AllGather, 4, trncclFloat32, trncclSum), 9);
  const CallFingerprint f16 = fingerprintOf(call(algo::Collective::AllGather, 4, trncclFloat16, trncclSum), 10);
  CHECK(describeDisagreement({f32, f16}) ==
        "TRNCCL_CHECK: the ranks disagree on this call: rank 0 called allgather #9 of 4 x float; "
        "rank 1 called allgather #10 of 4 x half (differing: sequence number, datatype)");
}

TEST_CASE("call check: bytes that are no fingerprint are said to be none", "[call-check]") {
  CallFingerprint garbage{};
  garbage.magic = 0xdeadbeef;
  const CallFingerprint good = fingerprintOf(call(algo::Collective::AllReduce, 1, trncclInt64, trncclProd), 0);
  CHECK(describeDisagreement({good, garbage}) ==
        "TRNCCL_CHECK: the ranks disagree on this call: rank 0 called allreduce #0 of 1 x int64 prod; "
        "rank 1 called something that is not a trnccl call fingerprint (differing: everything)");
}
