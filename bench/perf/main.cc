// trnccl-perf: nccl-tests' *_perf for trnccl. Times one collective over a
// sweep of sizes, checks the results, and prints nccl-tests' table.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "launch.h"
#include "logic/launch_env.h"
#include "logic/options.h"
#include "logic/usage_error.h"

int main(int argc, char** argv) {
  using namespace trnccl::perf;
  Options options;
  try {
    options = parse_args(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& error) {
    return usage_failure(error.what());
  }
  if (options.help) {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  // Before any communicator exists, which is when trnccl reads its environment.
  if (!options.algorithm.empty()) setenv("TRNCCL_ALGO", options.algorithm.c_str(), 1);
  const auto getenv = [](const char* name) -> const char* { return std::getenv(name); };
  return launched_by_mpirun(getenv) ? run_under_mpirun(options) : run_with_threads(options);
}
