#include "logic/launch_env.h"

namespace trnccl::perf {

bool launched_by_mpirun(const EnvLookup& getenv) {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"}) {
    if (getenv(name) != nullptr) return true;
  }
  return false;
}

std::map<std::string, std::string> trnccl_variables(const std::vector<std::string_view>& environment) {
  std::map<std::string, std::string> variables;
  for (std::string_view entry : environment) {
    const size_t equals = entry.find('=');
    if (!entry.starts_with("TRNCCL_") || equals == std::string_view::npos) continue;
    variables.emplace(entry.substr(0, equals), entry.substr(equals + 1));
  }
  return variables;
}

}  // namespace trnccl::perf
