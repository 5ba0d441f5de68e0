#include "transports/ofi/provider.h"

#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include <algorithm>
#include <cstring>

#include "base/env.h"
#include "base/error.h"
#include "base/settings.h"
#include "base/socket.h"
#include "transports/ofi/fi_error.h"

namespace trnccl::transport::ofi {
namespace {

TRNCCL_SETTING(kProvider, TRNCCL_OFI_PROVIDER,
               settings::text("a libfabric provider, e.g. `tcp;ofi_rxm`, `udp;ofi_rxd`, `shm`",
                              "`efa`, else `FI_PROVIDER`, else the first offered"),
               "libfabric provider of the ofi transport");

// What the transport needs, and the duties it accepts (EFA's): FI_CONTEXT2
// space in every operation's context, and registration of local buffers with
// any of the memory-registration modes EFA may ask for.
InfoList hints() {
  InfoList h(fi_allocinfo());
  if (!h) throwError(trncclSystemError, "fi_allocinfo failed: out of memory");
  h->caps = FI_TAGGED | FI_DIRECTED_RECV;
  h->mode = FI_CONTEXT | FI_CONTEXT2;
  h->ep_attr->type = FI_EP_RDM;
  h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
  h->domain_attr->threading = FI_THREAD_DOMAIN;
  h->domain_attr->av_type = FI_AV_TABLE;
  // Nothing relies on the order of messages or completions.
  h->tx_attr->msg_order = FI_ORDER_NONE;
  h->rx_attr->msg_order = FI_ORDER_NONE;
  return h;
}

std::string joined(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return list.empty() ? "none" : list;
}

std::vector<const fi_info*> entriesOf(const fi_info* list, const std::string& provider) {
  std::vector<const fi_info*> entries;
  for (const fi_info* i = list; i != nullptr; i = i->next)
    if (provider == i->fabric_attr->prov_name) entries.push_back(i);
  return entries;
}

// One entry per distinct domain (EFA: per NIC), in the provider's order.
std::vector<const fi_info*> distinctDomains(const std::vector<const fi_info*>& entries) {
  std::vector<const fi_info*> perDomain;
  for (const fi_info* e : entries) {
    const bool seen = std::any_of(perDomain.begin(), perDomain.end(), [e](const fi_info* d) {
      return std::strcmp(d->domain_attr->name, e->domain_attr->name) == 0;
    });
    if (!seen) perDomain.push_back(e);
  }
  return perDomain;
}

// The entries of the interfaces TRNCCL_SOCKET_IFNAME selects, in the order
// getifaddrs lists them (the same on hosts built alike, so rail r of every
// rank is on the same network), each with the address family
// selectInterfaces() prefers. Empty when the variable is unset or the
// provider's domains are not interfaces (shm).
std::vector<const fi_info*> perInterface(const std::vector<const fi_info*>& entries) {
  std::vector<const fi_info*> chosen;
  if (!env::get("TRNCCL_SOCKET_IFNAME")) return chosen;
  for (const net::Interface& i : net::selectInterfaces()) {
    const uint32_t format = i.address.family() == AF_INET6 ? FI_SOCKADDR_IN6 : FI_SOCKADDR_IN;
    const fi_info* best = nullptr;
    for (const fi_info* e : entries) {
      if (i.name != e->domain_attr->name) continue;
      if (best == nullptr || (e->addr_format == format && best->addr_format != format)) best = e;
    }
    if (best != nullptr) chosen.push_back(best);
  }
  return chosen;
}

std::vector<const fi_info*> railEntries(const std::vector<const fi_info*>& entries, const std::string& provider,
                                        int rails) {
  // Not every interface reaches every peer (loopback does not leave the
  // host): without TRNCCL_SOCKET_IFNAME, providers other than efa run every
  // rail over their first entry.
  std::vector<const fi_info*> perDomain = provider == "efa" ? distinctDomains(entries) : perInterface(entries);
  if (perDomain.empty()) perDomain.push_back(entries.front());
  std::vector<const fi_info*> chosen;
  for (int r = 0; r < rails; ++r) chosen.push_back(perDomain[static_cast<size_t>(r) % perDomain.size()]);
  return chosen;
}

}  // namespace

std::vector<std::string> providerNames(const fi_info* list) {
  std::vector<std::string> names;
  for (const fi_info* i = list; i != nullptr; i = i->next) {
    std::string name = i->fabric_attr->prov_name;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

ProviderChoice chooseProvider(int rails) {
  ProviderChoice choice;
  fi_info* offered = nullptr;
  InfoList wanted = hints();
  const int rc = fi_getinfo(kApiVersion, nullptr, nullptr, 0, wanted.get(), &offered);
  choice.offered.reset(offered);
  const auto filter = env::get("FI_PROVIDER");
  if (rc == -FI_ENODATA) {
    if (filter)
      throwError(trncclInvalidArgument, "environment variable FI_PROVIDER='" + *filter +
                                            "' leaves no libfabric provider with reliable-datagram endpoints "
                                            "(FI_EP_RDM) and tagged messages");
    throwError(trncclSystemError,
               "no libfabric provider offers reliable-datagram endpoints (FI_EP_RDM) with "
               "tagged messages and directed receives (fi_info -t FI_EP_RDM lists them)");
  }
  if (rc != 0) throwFiError("fi_getinfo", rc);

  const std::vector<std::string> names = providerNames(offered);
  const auto requested = settings::readText(kProvider);
  if (std::find(names.begin(), names.end(), "efa") != names.end()) {
    choice.provider = "efa";
    choice.why = requested ? "efa is present (TRNCCL_OFI_PROVIDER='" + *requested + "' applies only where it is not)"
                           : "efa is present";
  } else if (requested) {
    if (std::find(names.begin(), names.end(), *requested) == names.end())
      throwError(trncclInvalidArgument, "environment variable TRNCCL_OFI_PROVIDER='" + *requested +
                                            "' is not a libfabric provider with reliable-datagram tagged endpoints "
                                            "here; available: " +
                                            joined(names) + (filter ? " (after FI_PROVIDER='" + *filter + "')" : ""));
    choice.provider = *requested;
    choice.why = "TRNCCL_OFI_PROVIDER";
  } else {
    choice.provider = names.front();
    choice.why = filter ? "the first that FI_PROVIDER='" + *filter + "' leaves" : "the first fi_getinfo offers";
  }
  choice.rails = railEntries(entriesOf(offered, choice.provider), choice.provider, rails);
  return choice;
}

}  // namespace trnccl::transport::ofi
