// Which libfabric provider, fabric and domains the transport opens.
//
// Preference, as EFA users expect: `efa` whenever fi_getinfo offers it; else
// the provider named by TRNCCL_OFI_PROVIDER (exactly as fi_info spells it,
// e.g. "tcp;ofi_rxm"); else libfabric's own FI_PROVIDER filter applies and
// the first provider it leaves is taken; else the first one fi_getinfo
// offers. Only reliable-datagram endpoints with tagged messages and directed
// receives qualify.
//
// Rails: EFA lists one domain per NIC, and rail r opens the r-th distinct
// domain (round robin when there are fewer NICs than rails). Other providers
// list one domain per network interface: with TRNCCL_SOCKET_IFNAME set, rail
// r opens the r-th interface it selects (round robin), so that losing one
// link loses one rail; unset, all rails open the provider's first entry (not
// every interface reaches every peer: loopback does not leave the host).
#pragma once

#include <rdma/fabric.h>

#include <memory>
#include <string>
#include <vector>

namespace trnccl::transport::ofi {

inline constexpr uint32_t kApiVersion = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION);

struct InfoDeleter {
  void operator()(fi_info* info) const { fi_freeinfo(info); }
};
using InfoList = std::unique_ptr<fi_info, InfoDeleter>;

struct ProviderChoice {
  InfoList offered;                   // everything fi_getinfo offered
  std::vector<const fi_info*> rails;  // the entry each rail opens (into `offered`)
  std::string provider;               // e.g. "tcp;ofi_rxm"
  std::string why;                    // "efa is present", "TRNCCL_OFI_PROVIDER", ...
};

// Throws Error(InvalidArgument) naming TRNCCL_OFI_PROVIDER or FI_PROVIDER when
// the provider asked for is not offered (listing those that are), and
// Error(SystemError) when no provider qualifies at all.
ProviderChoice chooseProvider(int rails);

// The distinct provider names of a fi_getinfo list, in its order.
std::vector<std::string> providerNames(const fi_info* list);

}  // namespace trnccl::transport::ofi
