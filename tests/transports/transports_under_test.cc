#include "tests/transports/transports_under_test.h"

#include "transports/shm/shm_transport.h"

namespace trnccl::test {

std::vector<TransportUnderTest> transportsUnderTest() {
  std::vector<TransportUnderTest> variants;
  for (const char* copy : {"auto", "cma", "fifo"}) {
    variants.push_back({std::string("shm/") + copy,
                        {{"TRNCCL_SHM_COPY", copy}, {"TRNCCL_SHM_FIFO_BYTES", std::nullopt}},
                        transport::createShmTransport});
  }
  return variants;
}

VariantEnvironment::VariantEnvironment(const TransportUnderTest& variant) {
  for (const auto& [name, value] : variant.environment)
    settings_.push_back(std::make_unique<ScopedEnv>(name, value));
}

}  // namespace trnccl::test
