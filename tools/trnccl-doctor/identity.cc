#include "tools/trnccl-doctor/identity.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "trnccl/trnccl.h"

extern char** environ;

namespace trnccl::doctor {

Identity thisRank(const std::string& address) {
  Identity identity;
  char host[HOST_NAME_MAX + 1] = {};
  gethostname(host, sizeof host - 1);
  identity.host = host;
  trncclGetVersion(&identity.version);
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    if (equals != nullptr && std::strncmp(*entry, "TRNCCL_", 7) == 0)
      identity.settings[std::string(*entry, static_cast<size_t>(equals - *entry))] = equals + 1;
  }
  identity.address = address;
  return identity;
}

nlohmann::json toJson(const Identity& identity) {
  return {{"host", identity.host},
          {"version", identity.version},
          {"settings", identity.settings},
          {"address", identity.address}};
}

Identity identityFromJson(const nlohmann::json& json) {
  return {json.at("host").get<std::string>(), json.at("version").get<int>(),
          json.at("settings").get<std::map<std::string, std::string>>(), json.at("address").get<std::string>()};
}

int ranksOnHostOf(const std::vector<Identity>& ranks, int rank) {
  const std::string& host = ranks[static_cast<size_t>(rank)].host;
  return static_cast<int>(
      std::count_if(ranks.begin(), ranks.end(), [&](const Identity& other) { return other.host == host; }));
}

}  // namespace trnccl::doctor
