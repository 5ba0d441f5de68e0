// Four ranks on two emulated instances, ranks 0-1 on one and 2-3 on the
// other, joined by shared memory alone or by each network transport over
// each of its declared paths that crosses hosts (transports/factory.h): a
// rank hears its instance partner over shared memory and the other two over
// the network transport.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tests/support/scoped_env.h"
#include "transports/factory.h"

namespace trnccl::test {

struct TwoInstances {
  std::string name;         // "shm", "tcp", "ofi tcp;ofi_rxm"
  const char* topology;     // TRNCCL_TOPO (null: one flat host)
  const char* transport;    // TRNCCL_TRANSPORT (null: unset)
  const char* pathSetting;  // the transport's path setting (null: none)
  std::string path;         // its value
};

inline constexpr int kTwoInstanceRanks = 4;

// One flat host: shared memory carries everything.
inline const TwoInstances kSharedMemoryOnly{"shm", nullptr, nullptr, nullptr, ""};

// kSharedMemoryOnly, then the network transports over their paths.
inline std::vector<TwoInstances> twoInstanceNetworks() {
  std::vector<TwoInstances> networks{kSharedMemoryOnly};
  for (const transport::TransportEntry& t : transport::transports()) {
    if (t.reach != transport::Reach::Network) continue;
    const transport::Capabilities& declared = t.capabilities;
    if (declared.paths.empty()) networks.push_back({t.name, "trn1.2xlarge:2", t.name, nullptr, ""});
    for (const transport::Path& path : declared.paths)
      if (path.crossesHosts)
        networks.push_back(
            {std::string(t.name) + " " + path.value, "trn1.2xlarge:2", t.name, declared.pathSetting, path.value});
  }
  return networks;
}

// The environment that places communicators created in its scope as `net`.
class ScopedTwoInstances {
 public:
  explicit ScopedTwoInstances(const TwoInstances& net)
      : topology_("TRNCCL_TOPO", net.topology), transport_("TRNCCL_TRANSPORT", net.transport) {
    if (net.pathSetting) path_.emplace(net.pathSetting, net.path.c_str());
  }

 private:
  ScopedEnv topology_, transport_;
  std::optional<ScopedEnv> path_;
};

// TRNCCL_TRANSPORT=`name` over its first declared path, for a scope.
class ScopedNetworkTransport {
 public:
  explicit ScopedNetworkTransport(const std::string& name) : transport_("TRNCCL_TRANSPORT", name.c_str()) {
    const transport::Capabilities& declared = transport::transportNamed(name).capabilities;
    if (declared.pathSetting) path_.emplace(declared.pathSetting, declared.paths.front().value.c_str());
  }

 private:
  ScopedEnv transport_;
  std::optional<ScopedEnv> path_;
};

}  // namespace trnccl::test
