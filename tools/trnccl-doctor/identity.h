// What a rank tells the others before the checks: where it runs, which trnccl
// it runs with which settings, and where it listens for the reachability
// check.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trnccl::doctor {

struct Identity {
  std::string host;
  int version = 0;                              // trncclGetVersion
  std::map<std::string, std::string> settings;  // every TRNCCL_* variable set
  std::string address;                          // "" when no interface was usable
};

// This process's, listening at `address`.
Identity thisRank(const std::string& address);

nlohmann::json toJson(const Identity& identity);
Identity identityFromJson(const nlohmann::json& json);

// How many of `ranks` run on the host of rank `rank`.
int ranksOnHostOf(const std::vector<Identity>& ranks, int rank);

}  // namespace trnccl::doctor
