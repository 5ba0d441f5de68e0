// trnccl-doctor: a preflight check of the hosts and settings a trnccl job
// will run with (docs/doctor.md).
#include <iostream>
#include <set>

#include "base/error.h"
#include "core/declared_settings.h"
#include "tools/trnccl-doctor/checks.h"
#include "tools/trnccl-doctor/exchange.h"
#include "tools/trnccl-doctor/options.h"
#include "tools/trnccl-doctor/reachability.h"
#include "tools/trnccl-doctor/report.h"
#include "tools/trnccl-doctor/transports_listing.h"

using namespace trnccl::doctor;

namespace {

// Runs every check on this rank, in the same order on every rank. Exit
// status: 0 when every rank passed every check, 1 otherwise.
int diagnose(Exchange& exchange, const Options& options) {
  const int nranks = exchange.size();
  Reachability reachability;                                    // listening before anyone learns the address
  const std::optional<uint64_t> shmFree = freeBytesInDevShm();  // before the exchange: see checks.h

  std::vector<Identity> ranks;
  for (const std::string& text : exchange.allGather(toJson(thisRank(reachability.address())).dump()))
    ranks.push_back(identityFromJson(nlohmann::json::parse(text)));

  trnccl::core::Config config;
  try {
    config = trnccl::core::resolveConfig(nullptr);
  } catch (const trnccl::Error&) {
    // checkSettings names the variable; the other checks go by the defaults.
  }
  std::vector<CheckResult> mine{checkSettings(ranks[static_cast<size_t>(exchange.rank())].settings)};
  mine.push_back(checkSharedMemory(shmFree, ranksOnHostOf(ranks, exchange.rank()), nranks));
  mine.push_back(checkCrossMemoryAttach(options.ptraceScopeFile));
  mine.push_back(reachability.check(ranks, exchange.rank(), options.timeout));
  mine.push_back(checkOfi(config));
  mine.push_back(checkTopology(config, nranks));

  std::vector<std::vector<CheckResult>> perRank;
  for (const std::string& text : exchange.allGather(toJson(mine).dump()))
    perRank.push_back(resultsFromJson(nlohmann::json::parse(text)));
  const std::vector<MergedCheck> merged = mergeResults(perRank, {checkConsistency(ranks)});

  if (exchange.rank() == 0) {
    std::set<std::string> hosts;
    for (const Identity& identity : ranks) hosts.insert(identity.host);
    if (options.json) {
      printJson(std::cout, merged, nranks, static_cast<int>(hosts.size()));
    } else {
      printText(std::cout, merged, nranks, static_cast<int>(hosts.size()));
    }
  }
  return allOk(merged) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parseOptions(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::cerr << "trnccl-doctor: " << e.what() << "\n" << usageText();
    return 2;
  }
  if (options.help) {
    std::cout << usageText();
    return 0;
  }
  if (options.settings) {
    std::cout << trnccl::settings::markdownTable(trnccl::core::declaredSettings());
    return 0;
  }
  if (options.transports) {
    std::cout << transportsJson().dump(2) << "\n";
    return 0;
  }
  try {
    if (launchedByMpi()) {
      if (options.localRanks != 1 || !options.rendezvous.empty())
        throw UsageError("under mpirun, mpirun starts the ranks: drop -n and --rendezvous");
      const int status = diagnose(*mpiExchange(&argc, &argv), options);
      finalizeMpi();
      return status;
    }
    if (!options.rendezvous.empty()) {
      // Ranks started by hand may start minutes apart.
      const auto wait = std::max(options.timeout, std::chrono::milliseconds(120000));
      return diagnose(*fileExchange(options.rendezvous, options.rank, options.nranks, wait), options);
    }
    if (options.localRanks == 1) {
      SoloExchange solo;
      return diagnose(solo, options);
    }
    int status = 0;
    auto exchange = forkLocalRanks(options.localRanks, &status);
    return exchange ? diagnose(*exchange, options) : status;
  } catch (const UsageError& e) {
    std::cerr << "trnccl-doctor: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "trnccl-doctor: " << e.what() << "\n";
    return 1;
  }
}
