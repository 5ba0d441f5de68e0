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

std::string mpi_library_name(std::string_view version_text) {
  const std::string_view first = version_text.substr(0, version_text.find_first_of(",\n"));
  std::string name;
  for (const char c : first) {
    const bool space = c == ' ' || c == '\t' || c == '\r';
    if (!space) {
      name += c;
    } else if (!name.empty() && name.back() != ' ') {
      name += ' ';
    }
  }
  if (!name.empty() && name.back() == ' ') name.pop_back();
  return name;
}

}  // namespace trnccl::perf
