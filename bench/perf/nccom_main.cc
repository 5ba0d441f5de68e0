// trnccl-nccom-test: Neuron's nccom-test for trnccl. The same runs as
// trnccl-perf, read from nccom-test's command line and printed as its table.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "launch.h"
#include "logic/launch_env.h"
#include "logic/nccom_options.h"
#include "logic/usage_error.h"

int main(int argc, char** argv) {
  using namespace trnccl::perf;
  Options options;
  const auto getenv = [](const char* name) -> const char* { return std::getenv(name); };
  const bool under_mpirun = launched_by_mpirun(getenv);
  try {
    options = parse_nccom_args(std::vector<std::string>(argv + 1, argv + argc));
    if (!options.help && under_mpirun) {
      // Each process is one rank: -r must say how many mpirun started.
      const char* size = getenv("OMPI_COMM_WORLD_SIZE");
      if (size != nullptr && std::to_string(options.threads) != size)
        throw UsageError("-r " + std::to_string(options.threads) + " but mpirun started " + size + " ranks");
      options.threads = 1;
    }
  } catch (const UsageError& error) {
    std::fprintf(stderr, "trnccl-nccom-test: %s\n\n%s", error.what(), nccom_usage_text().c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(nccom_usage_text().c_str(), stdout);
    return 0;
  }
  if (options.instances > 1) {
    // -N instances of the machine, emulated on this host, the ranks shared evenly.
    const char* topology = getenv("TRNCCL_TOPO");
    std::string base = topology != nullptr ? topology : "trn1.32xlarge";
    base = base.substr(0, base.find(':'));
    setenv("TRNCCL_TOPO", (base + ":" + std::to_string(options.instances)).c_str(), 1);
    setenv("TRNCCL_RANK_ORDER", "spread", 0);
  }
  return under_mpirun ? run_under_mpirun(options) : run_with_threads(options);
}
