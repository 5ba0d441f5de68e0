// trnccl-trace analyze on dumps written by hand, for the shapes of hang the
// real tests (test_hangs.cc, test_hang_processes.cc) cannot make on demand:
// a cycle of waits, a rank stuck while not waiting, a send/recv group,
// several communicators in one directory.
#include <catch2/catch.hpp>

#include "analysis.h"

using trnccl::trace::RankDump;
using trnccl::trace::RecordedOp;

namespace {

RecordedOp op(uint64_t seq, const char* state, int peer = -1, int64_t step = -1, bool receiving = true) {
  RecordedOp o;
  o.seq = seq;
  o.collective = "allreduce";
  o.count = 64;
  o.type = "float";
  o.op = "sum";
  o.algorithm = "ring";
  o.state = state;
  o.waitPeer = peer;
  o.waitStep = step;
  o.waitReceiving = receiving;
  return o;
}

RankDump dump(int rank, int nranks, std::vector<RecordedOp> ops, const char* comm = "c1-4") {
  RankDump d;
  d.comm = comm;
  d.rank = rank;
  d.nranks = nranks;
  d.ops = std::move(ops);
  return d;
}

}  // namespace

TEST_CASE("analyze: ranks that wait for each other in a cycle", "[trace][analyze]") {
  const auto d = trnccl::trace::analyze({dump(0, 3, {op(0, "waiting", 1, 2)}), dump(1, 3, {op(0, "waiting", 2, 2)}),
                                         dump(2, 3, {op(0, "waiting", 0, 2, false)})});
  CHECK(d.problem);
  CHECK_THAT(d.line, Catch::Contains("cycle 0 -> 1 -> 2 -> 0"));
}

TEST_CASE("analyze: the rank at the end of a chain of waits is named with its state", "[trace][analyze]") {
  // 0 waits for 1, 1 for 2, and 2 is in the call without waiting on anyone.
  const auto d = trnccl::trace::analyze({dump(0, 3, {op(0, "done"), op(1, "waiting", 1, 4)}),
                                         dump(1, 3, {op(0, "done"), op(1, "waiting", 2, 5)}),
                                         dump(2, 3, {op(0, "done"), op(1, "running")})});
  CHECK(d.line ==
        "comm c1-4: allreduce #1 (64 x float sum, ring) hangs: rank 1 waits to receive from rank 2 at step 5; "
        "rank 2 is running in it (1 more rank waits behind it)");
}

TEST_CASE("analyze: a send/recv group that waits on a peer", "[trace][analyze]") {
  RecordedOp p2p;
  p2p.collective = "send/recv group";
  p2p.count = 2;
  p2p.algorithm = "p2p";
  p2p.state = "failed";
  p2p.waitPeer = 1;
  p2p.waitStep = 0;
  p2p.waitReceiving = false;
  const auto d = trnccl::trace::analyze({dump(0, 2, {op(0, "done"), p2p}), dump(1, 2, {op(0, "done")})});
  CHECK_THAT(d.line, Catch::Contains("send/recv group (2, p2p) hangs: rank 0 waits for rank 1 to receive at step 0"));
}

TEST_CASE("analyze: the communicator with the problem is named among several", "[trace][analyze]") {
  const auto d =
      trnccl::trace::analyze({dump(0, 2, {op(0, "done")}, "a-2"), dump(1, 2, {op(0, "done")}, "a-2"),
                              dump(0, 2, {op(3, "waiting", 1, 0)}, "b-2"), dump(1, 2, {op(2, "done")}, "b-2")});
  CHECK(d.problem);
  CHECK_THAT(d.line, Catch::StartsWith("comm b-2: allreduce #3") && Catch::Contains("rank 1 never entered it") &&
                         Catch::Contains("last collective: #2"));
}

TEST_CASE("analyze: nothing unfinished is no hang, and missing ranks are noted", "[trace][analyze]") {
  const auto d = trnccl::trace::analyze({dump(0, 3, {op(0, "done")}), dump(2, 3, {op(0, "done")})});
  CHECK_FALSE(d.problem);
  CHECK(d.line ==
        "no hang recorded: every operation in the dumps of ranks 0, 2 ended; rank 1 left no dump (stopped or "
        "killed? send SIGUSR1 with TRNCCL_TRACE_DIR set)");
}
