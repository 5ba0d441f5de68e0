// Checks of the job's settings: TRNCCL_* parse, the libfabric provider, the
// topology against the rank count, and agreement between ranks.
#include <algorithm>
#include <set>

#include "base/error.h"
#include "base/rank_list.h"
#include "core/declared_settings.h"
#include "tools/trnccl-doctor/checks.h"
#include "topology/rank_map.h"
#include "topology/topology.h"
#include "transports/ofi/config.h"
#include "transports/ofi/provider.h"
#include "transports/shm/config.h"
#include "transports/tcp/config.h"

namespace trnccl::doctor {
namespace {

// TRNCCL_VERSION_CODE(X, Y, Z) as "X.Y.Z".
std::string versionText(int code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

bool perRank(const std::string& name) {
  const auto declared = core::declaredSettings();
  return std::any_of(declared.begin(), declared.end(),
                     [&](const settings::Setting* s) { return s->scope == settings::Scope::Rank && name == s->name; });
}

}  // namespace

CheckResult checkSettings(const std::map<std::string, std::string>& variables) {
  std::vector<std::string> names;
  for (const auto& [name, value] : variables) names.push_back(name);
  std::string unknown;
  for (const std::string& line : settings::undeclared(names, core::declaredSettings(), false))
    unknown += (unknown.empty() ? "" : "; ") + line;
  if (!unknown.empty())
    return problem(
        "settings", unknown,
        "correct the name or unset it (trnccl-doctor --settings lists them; docs: README, Environment variables)");
  try {
    const core::Config config = core::resolveConfig(nullptr);
    transport::shm::readConfig();
    transport::tcp::readConfig();
    transport::ofi::readConfig();
    return ok("settings", "TRNCCL_* parse: transport " + config.transport + ", algorithm " + config.algorithm +
                              ", timeout " + std::to_string(config.timeout.count()) + " ms");
  } catch (const Error& e) {
    return problem("settings", e.what(), "correct or unset the variable named (docs: README, Environment variables)");
  }
}

CheckResult checkOfi(const core::Config& config) {
  const bool used = config.transport == "auto" || config.transport == "ofi";
  const std::string use = used ? "TRNCCL_TRANSPORT=" + config.transport + " uses it between instances"
                               : "not used (TRNCCL_TRANSPORT=" + config.transport + ")";
  try {
    const transport::ofi::ProviderChoice choice = transport::ofi::chooseProvider(transport::ofi::readConfig().rails);
    std::string offered;
    for (const std::string& name : transport::ofi::providerNames(choice.offered.get()))
      offered += (offered.empty() ? "" : ", ") + name;
    return ok("ofi", "providers " + offered + "; would use " + choice.provider + " (" + choice.why + "); " + use);
  } catch (const Error& e) {
    if (!used) return ok("ofi", use + " (" + e.what() + ")");
    return problem("ofi", e.what(),
                   "name a provider fi_info lists in TRNCCL_OFI_PROVIDER (or unset it and FI_PROVIDER), install "
                   "libfabric's providers (on EFA hosts: the EFA installer), or set TRNCCL_TRANSPORT=tcp");
  }
}

CheckResult checkTopology(const core::Config& config, int nranks) {
  if (config.topology.empty()) return ok("topology", "TRNCCL_TOPO unset: ranks run on this host as it is");
  try {
    const topo::Topology t = topo::loadTopology(config.topology);
    topo::mapRanks(t, nranks, config.rankOrder, config.topologySource);
    return ok("topology", config.topologySource + "='" + config.topology + "': " + t.name + " with " +
                              std::to_string(t.totalCores()) + " NeuronCores on " + std::to_string(t.nodes) +
                              " instance(s) places the " + std::to_string(nranks) + " ranks");
  } catch (const Error& e) {
    return problem("topology", e.what(),
                   "run as many ranks as the topology has NeuronCores (or fewer), or give it more instances "
                   "(TRNCCL_TOPO=<name>:<instances>); trnccl-ls shows a topology");
  }
}

CheckResult checkConsistency(const std::vector<Identity>& ranks) {
  std::string differences;
  auto compare = [&](const std::string& what, auto valueOf) {
    std::map<std::string, std::vector<int>> ranksWith;
    for (size_t r = 0; r < ranks.size(); ++r) ranksWith[valueOf(ranks[r])].push_back(static_cast<int>(r));
    if (ranksWith.size() < 2) return;
    std::string line = what + " differs:";
    for (const auto& [value, holders] : ranksWith) line += " " + value + " on " + describeRanks(holders) + ";";
    line.pop_back();
    differences += (differences.empty() ? "" : "; ") + line;
  };
  compare("the trnccl version", [](const Identity& i) { return versionText(i.version); });
  std::set<std::string> names;
  for (const Identity& identity : ranks)
    for (const auto& [name, value] : identity.settings) names.insert(name);
  for (const std::string& name : names) {
    if (perRank(name)) continue;
    compare(name, [&name](const Identity& i) {
      const auto found = i.settings.find(name);
      return found == i.settings.end() ? std::string("unset") : "'" + found->second + "'";
    });
  }
  if (!differences.empty())
    return problem("consistency", differences,
                   "give every rank the same trnccl and the same TRNCCL_* environment (mpirun -x NAME, or export "
                   "it before launching)");
  return ok("consistency", std::to_string(ranks.size()) + (ranks.size() == 1 ? " rank runs" : " ranks run") +
                               " trnccl " + versionText(ranks.front().version) + " with the same TRNCCL_* settings (" +
                               std::to_string(names.size()) + " set)");
}

}  // namespace trnccl::doctor
