#include "tests/transports/transports_under_test.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "transports/factory.h"

namespace trnccl::test {
namespace {

using Environment = std::vector<std::pair<const char*, std::optional<std::string>>>;

struct Variant {
  std::string suffix;  // after the transport's name
  Environment environment;
  bool keepsBytesIntact = true;
};

// Settings a transport is tested under besides its declared paths; one this
// list does not know runs over its paths (or once) with its defaults.
std::vector<Variant> tuningsOf(const std::string& transport) {
  std::vector<Variant> variants;
  if (transport == "shm") {
    for (const char* copy : {"auto", "cma", "fifo"})
      variants.push_back(
          {std::string("/") + copy, {{"TRNCCL_SHM_COPY", copy}, {"TRNCCL_SHM_FIFO_BYTES", std::nullopt}}});
  } else if (transport == "ofi") {
    // EFA as trn1 uses it: reliable unordered datagrams over several NICs,
    // completions in any order, few operations in flight, small chunks.
    variants.push_back({"/udp;ofi_rxd efa-like",
                        {{"TRNCCL_OFI_PROVIDER", "udp;ofi_rxd"},
                         {"TRNCCL_OFI_RAILS", "4"},
                         {"TRNCCL_OFI_CHUNK_BYTES", "65536"},
                         {"TRNCCL_OFI_MAX_OUTSTANDING", "16"},
                         {"TRNCCL_OFI_FAULTS", "delay=300:reorder"}}});
  } else if (transport == "tcp") {
    // The default striping, and one connection per pair (every message interleaved on it).
    variants.push_back({"", {{"TRNCCL_TCP_SOCKETS_PER_PEER", std::nullopt}}});
    variants.push_back({"/1-socket", {{"TRNCCL_TCP_SOCKETS_PER_PEER", "1"}}});
  }
  return variants;
}

// Each declared path with the tunings' settings at their defaults, then the tunings.
std::vector<Variant> variantsOf(const transport::TransportEntry& entry) {
  std::vector<Variant> tunings = tuningsOf(entry.name), variants;
  const transport::Capabilities& declared = entry.capabilities;
  for (const transport::Path& path : declared.paths) {
    Environment environment{{declared.pathSetting, path.value}};
    for (const Variant& tuning : tunings)
      for (const auto& [name, value] : tuning.environment)
        if (name != std::string(declared.pathSetting)) environment.push_back({name, std::nullopt});
    variants.push_back({"/" + path.value, std::move(environment), path.keepsBytesIntact});
  }
  // A tuning over a declared path keeps (or not) the bytes as that path does.
  for (Variant& tuning : tunings)
    for (const auto& [name, value] : tuning.environment)
      if (declared.pathSetting && name == std::string(declared.pathSetting) && value)
        tuning.keepsBytesIntact = declared.keepsBytesIntact(*value);
  variants.insert(variants.end(), tunings.begin(), tunings.end());
  if (variants.empty()) variants.push_back({"", {}});
  return variants;
}

}  // namespace

std::vector<TransportUnderTest> transportsUnderTest() {
  std::vector<TransportUnderTest> variants;
  for (const transport::TransportEntry& entry : transport::transports())
    for (Variant& v : variantsOf(entry))
      variants.push_back({entry.name + v.suffix, std::move(v.environment), &entry, v.keepsBytesIntact});
  return variants;
}

void requireIntactOrCaught(const std::string& name, bool keepsBytesIntact, const std::vector<RankResult>& results) {
  const auto any = [&results](const char* what) {
    return std::any_of(results.begin(), results.end(),
                       [what](const RankResult& r) { return r.error.find(what) != std::string::npos; });
  };
  const bool everyRankEnded = std::all_of(results.begin(), results.end(), [](const RankResult& r) {
    return r.ok() || (!r.error.empty() && r.error.find("timed out") == std::string::npos);
  });
  if (!keepsBytesIntact && any("arrived corrupted") && !any("differs at byte") && everyRankEnded) {
    for (size_t r = 0; r < results.size(); ++r)
      if (!results[r].ok()) WARN(name << " corrupted bytes, and rank " << r << " said: " << results[r].error);
    return;
  }
  requireAllOk(results);
}

VariantEnvironment::VariantEnvironment(const TransportUnderTest& variant) {
  for (const auto& [name, value] : variant.environment) settings_.push_back(std::make_unique<ScopedEnv>(name, value));
}

}  // namespace trnccl::test
