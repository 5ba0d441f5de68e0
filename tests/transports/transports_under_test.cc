#include "tests/transports/transports_under_test.h"

#include "transports/ofi/ofi_transport.h"
#include "transports/shm/shm_transport.h"
#include "transports/tcp/tcp_transport.h"

namespace trnccl::test {

std::vector<TransportUnderTest> transportsUnderTest() {
  std::vector<TransportUnderTest> variants;
  for (const char* copy : {"auto", "cma", "fifo"}) {
    variants.push_back({std::string("shm/") + copy,
                        {{"TRNCCL_SHM_COPY", copy}, {"TRNCCL_SHM_FIFO_BYTES", std::nullopt}},
                        transport::createShmTransport});
  }
  // libfabric over the providers Debian ships: udp;ofi_rxd is the closest to
  // EFA's reliable unordered datagrams.
  for (const char* provider : {"tcp;ofi_rxm", "udp;ofi_rxd", "shm"}) {
    variants.push_back({std::string("ofi/") + provider,
                        {{"TRNCCL_OFI_PROVIDER", provider},
                         {"TRNCCL_OFI_RAILS", std::nullopt},
                         {"TRNCCL_OFI_CHUNK_BYTES", std::nullopt},
                         {"TRNCCL_OFI_MAX_OUTSTANDING", std::nullopt},
                         {"TRNCCL_OFI_FAULTS", std::nullopt}},
                        transport::createOfiTransport});
  }
  // EFA as trn1 uses it: reliable unordered datagrams over several NICs,
  // completions in any order, few operations in flight, small chunks.
  variants.push_back({"ofi/udp;ofi_rxd efa-like",
                      {{"TRNCCL_OFI_PROVIDER", "udp;ofi_rxd"},
                       {"TRNCCL_OFI_RAILS", "4"},
                       {"TRNCCL_OFI_CHUNK_BYTES", "65536"},
                       {"TRNCCL_OFI_MAX_OUTSTANDING", "16"},
                       {"TRNCCL_OFI_FAULTS", "delay=300:reorder"}},
                      transport::createOfiTransport});
  // The default striping, and one connection per pair (every message interleaved on it).
  variants.push_back(
      {"tcp", {{"TRNCCL_TCP_SOCKETS_PER_PEER", std::nullopt}}, transport::createTcpTransport});
  variants.push_back(
      {"tcp/1-socket", {{"TRNCCL_TCP_SOCKETS_PER_PEER", "1"}}, transport::createTcpTransport});
  return variants;
}

VariantEnvironment::VariantEnvironment(const TransportUnderTest& variant) {
  for (const auto& [name, value] : variant.environment)
    settings_.push_back(std::make_unique<ScopedEnv>(name, value));
}

}  // namespace trnccl::test
