#include "tests/transports/transports_under_test.h"

#include "transports/factory.h"

namespace trnccl::test {
namespace {

using Environment = std::vector<std::pair<const char*, std::optional<std::string>>>;

struct Variant {
  std::string suffix;  // after the transport's name
  Environment environment;
};

// The settings a transport is tested under; one this list does not know
// runs with its defaults.
std::vector<Variant> variantsOf(const std::string& transport) {
  std::vector<Variant> variants;
  if (transport == "shm") {
    for (const char* copy : {"auto", "cma", "fifo"})
      variants.push_back(
          {std::string("/") + copy, {{"TRNCCL_SHM_COPY", copy}, {"TRNCCL_SHM_FIFO_BYTES", std::nullopt}}});
  } else if (transport == "ofi") {
    // libfabric over the providers Debian ships: udp;ofi_rxd is the closest to
    // EFA's reliable unordered datagrams.
    for (const char* provider : {"tcp;ofi_rxm", "udp;ofi_rxd", "shm"})
      variants.push_back({std::string("/") + provider,
                          {{"TRNCCL_OFI_PROVIDER", provider},
                           {"TRNCCL_OFI_RAILS", std::nullopt},
                           {"TRNCCL_OFI_CHUNK_BYTES", std::nullopt},
                           {"TRNCCL_OFI_MAX_OUTSTANDING", std::nullopt},
                           {"TRNCCL_OFI_FAULTS", std::nullopt}}});
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
  } else {
    variants.push_back({"", {}});
  }
  return variants;
}

}  // namespace

std::vector<TransportUnderTest> transportsUnderTest() {
  std::vector<TransportUnderTest> variants;
  for (const transport::TransportEntry& entry : transport::transports())
    for (Variant& v : variantsOf(entry.name))
      variants.push_back({entry.name + v.suffix, std::move(v.environment), entry.create});
  return variants;
}

VariantEnvironment::VariantEnvironment(const TransportUnderTest& variant) {
  for (const auto& [name, value] : variant.environment) settings_.push_back(std::make_unique<ScopedEnv>(name, value));
}

}  // namespace trnccl::test
