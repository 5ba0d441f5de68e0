// Rail failover and failback of the libfabric transport, for real: two ranks
// in two emulated hosts (network namespaces) joined by two links, over the
// tcp provider with a rail on each (TRNCCL_SOCKET_IFNAME=veth selects both
// interfaces). A link goes down in the middle of a large exchange (link 0
// carries the control messages: they move too); every
// message must still arrive intact, the rail must show as down, and once the
// link is back the rail must carry chunks again. Needs root and iproute2's
// `ip`, like the tcp transport's rail test. The heap may grow by what
// failing over leaves: the pool keeps up to a window of chunk buffers per
// rail and peer each way (more of them in use after a failover than before:
// receives the provider could not withdraw, sends it still holds, and their
// replacements), and the sink that takes the sends a lost rail held is
// allocated once. The stall is the default: under the test suite's load a
// shorter one (300 ms, 100 ms) took a slow rail for a lost one now and then.
#include <catch2/catch.hpp>
#include <string>

#include "tests/collectives/two_hosts.h"
#include "tests/support/scoped_env.h"
#include "tests/transports/check.h"
#include "tests/transports/launch.h"
#include "tests/transports/rail_exchange.h"
#include "transports/ofi/config.h"
#include "transports/ofi/ofi_transport.h"
#include "transports/ofi/operation.h"

using namespace trnccl;
using namespace trnccl::test;

TEST_CASE(
    "ofi rails: a link that goes down mid-transfer moves its chunks to the other rail with every byte right, and "
    "once back carries chunks again, with no descriptors left behind and the heap grown by at most what the lost rail "
    "held",
    "[ofi][rails]") {
  const int lost = GENERATE(0, 1);
  CAPTURE(lost);
  TwoHosts hosts(2);
  ScopedEnv provider("TRNCCL_OFI_PROVIDER", "tcp;ofi_rxm"), ifname("TRNCCL_SOCKET_IFNAME", "veth");
  ScopedEnv rails("TRNCCL_OFI_RAILS", "2"), stall("TRNCCL_OFI_RAIL_STALL_MS", "1000");
  const std::string jobKey = uniqueJobKey("ofi-rails");
  requireAllOk(launch(Launch::Processes, 2, [&](int rank, TestOutOfBand& oob) {
    hosts.enter(rank);
    auto t = transport::createOfiTransport(optionsFor(oob, jobKey));
    constexpr uint64_t kChunk = uint64_t{1} << 20;  // TRNCCL_OFI_CHUNK_BYTES' default
    failOverAndBack(hosts, rank, oob, *t, lost,
                    (4 * transport::ofi::kChunksInFlightPerRail + 1) * kChunk + 64 * sizeof(transport::ofi::Operation));
  }));
}
