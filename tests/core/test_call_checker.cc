// TRNCCL_CHECK's swap of call fingerprints, run for real: ranks as threads,
// each with its own executor over shared memory.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "base/error.h"
#include "core/call_checker.h"
#include "core/transport_set.h"
#include "device/device.h"
#include "tests/transports/check.h"
#include "tests/transports/launch.h"

using namespace trnccl;
using namespace trnccl::core;
using namespace trnccl::test;

namespace {

// Each rank checks its call(rank) as call number `sequence`; per rank, the
// error the check threw ("" if none).
std::vector<std::string> checkErrors(int nranks, const std::function<size_t(int rank)>& countOf,
                                     uint64_t sequence = 5) {
  std::vector<std::string> errors(nranks);
  const std::string jobKey = uniqueJobKey("call-checker");
  requireAllOk(launch(Launch::Threads, nranks, [&](int rank, TestOutOfBand& oob) {
    const TransportSet transports(optionsFor(oob, jobKey), {}, instanceTransport(), instanceTransport());
    device::Device device(device::trainium());
    runtime::ExecutorContext context;
    context.rank = rank;
    context.nranks = nranks;
    context.transportOf = transports.byPeer();
    context.transports = transports.all();
    context.device = &device;
    context.timeout = std::chrono::seconds(30);
    runtime::Executor executor(context);
    CallChecker checker(executor, rank, nranks);
    algo::CollectiveArgs args;
    args.collective = algo::Collective::AllReduce;
    args.rank = rank;
    args.nranks = nranks;
    args.count = countOf(rank);
    try {
      checker.check(args, sequence);
    } catch (const Error& e) {
      errors[rank] = std::string(e.code() == trncclInvalidUsage ? "" : "not InvalidUsage: ") + e.what();
    }
  }));
  return errors;
}

}  // namespace

TEST_CASE("call checker: ranks making the same call pass", "[call-check]") {
  CHECK(checkErrors(3, [](int) { return 100; }) == std::vector<std::string>(3, ""));
}

TEST_CASE("call checker: every rank fails when one rank's call differs, with the same message", "[call-check]") {
  const std::vector<std::string> errors = checkErrors(3, [](int rank) { return rank == 1 ? 101 : 100; });
  CHECK(errors[0] ==
        "TRNCCL_CHECK: the ranks disagree on this call: ranks 0, 2 called allreduce #5 of 100 x float sum; "
        "rank 1 called allreduce #5 of 101 x float sum (differing: count)");
  CHECK(errors[1] == errors[0]);
  CHECK(errors[2] == errors[0]);
}
