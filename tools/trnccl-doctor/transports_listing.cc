#include "tools/trnccl-doctor/transports_listing.h"

#include "transports/factory.h"

namespace trnccl::doctor {

nlohmann::json transportsJson() {
  nlohmann::json all = nlohmann::json::array();
  for (const transport::TransportEntry& t : transport::transports()) {
    const transport::Capabilities& declared = t.capabilities;
    nlohmann::json paths = nlohmann::json::array();
    for (const transport::Path& path : declared.paths)
      paths.push_back({{"value", path.value}, {"crosses_hosts", path.crossesHosts}});
    all.push_back({{"name", t.name},
                   {"reach", t.reach == transport::Reach::Instance ? "instance" : "network"},
                   {"auto_rank", t.autoRank},
                   {"path_setting", declared.pathSetting ? nlohmann::json(declared.pathSetting) : nlohmann::json()},
                   {"paths", paths},
                   {"rails", declared.rails},
                   {"registration", declared.registration}});
  }
  return all;
}

}  // namespace trnccl::doctor
