// Four ranks on two emulated instances, ranks 0-1 on one and 2-3 on the
// other, joined by shared memory alone or by each network transport: a rank
// hears its instance partner over shared memory and the other two over the
// network transport.
#pragma once

#include <array>

#include "scoped_env.h"

namespace trnccl::test {

struct TwoInstances {
  const char* name;
  const char* topology;   // TRNCCL_TOPO (null: one flat host)
  const char* transport;  // TRNCCL_TRANSPORT
  const char* provider;   // TRNCCL_OFI_PROVIDER
};

inline constexpr int kTwoInstanceRanks = 4;
inline constexpr std::array<TwoInstances, 4> kTwoInstanceNetworks{{
    {"shm", nullptr, nullptr, nullptr},
    {"tcp", "trn1.2xlarge:2", "tcp", nullptr},
    {"ofi tcp;ofi_rxm", "trn1.2xlarge:2", "ofi", "tcp;ofi_rxm"},
    {"ofi udp;ofi_rxd", "trn1.2xlarge:2", "ofi", "udp;ofi_rxd"},
}};

// The environment that places communicators created in its scope as `net`.
class ScopedTwoInstances {
 public:
  explicit ScopedTwoInstances(const TwoInstances& net)
      : topology_("TRNCCL_TOPO", net.topology),
        transport_("TRNCCL_TRANSPORT", net.transport),
        provider_("TRNCCL_OFI_PROVIDER", net.provider) {}

 private:
  ScopedEnv topology_, transport_, provider_;
};

}  // namespace trnccl::test
