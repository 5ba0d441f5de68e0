#include <cstdio>
#include <string_view>
#include <vector>

#include "launch.h"
#include "logic/launch_env.h"
#include "trnccl/trnccl.h"
#include "trnccl_error.h"

extern char** environ;

namespace trnccl::perf {

RunInfo make_run_info(int nranks, const std::string& launch, trncclComm_t comm) {
  int version = 0;
  check_trnccl(trncclGetVersion(&version), "trncclGetVersion", nullptr);
  char transport[TRNCCL_TRANSPORT_NAME_MAX];
  check_trnccl(trncclCommGetTransport(comm, transport), "trncclCommGetTransport", comm);
  std::vector<std::string_view> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) environment.emplace_back(*entry);
  return {nranks, launch, version, transport, trnccl_variables(environment)};
}

int usage_failure(const std::string& message) {
  std::fprintf(stderr, "trnccl-perf: %s\n\n%s", message.c_str(), usage_text().c_str());
  return 2;
}

}  // namespace trnccl::perf
