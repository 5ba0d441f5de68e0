// The rail failover test's scenario, for every transport with rails (tcp,
// ofi): two ranks in two emulated hosts joined by two links exchange large
// messages while link 1 goes down mid-transfer and comes back.
#pragma once

#include "tests/collectives/two_hosts.h"
#include "tests/transports/test_oob.h"
#include "transports/transport.h"

namespace trnccl::test {

// Rank `rank`'s part, over a transport whose two rails run over hosts'
// links 0 and 1, while link `lost` goes down and comes back: every message
// arrives intact throughout; its rail is shown down (failed over once, the
// other rail untouched), then up and carrying data again; file descriptors
// do not grow across it, nor the transport's heap by more than
// `heapAllowance` bytes.
void failOverAndBack(const TwoHosts& hosts, int rank, TestOutOfBand& oob, transport::Transport& transport, int lost,
                     uint64_t heapAllowance = 0);

}  // namespace trnccl::test
