// The transports (and their variants) the conformance suite runs against:
// every transport of the factory (transports/factory.h), over each path it
// declares, and under the settings transports_under_test.cc lists for it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/transports/check.h"
#include "transports/registration.h"

namespace trnccl::test {

struct TransportUnderTest {
  std::string name;
  // Environment the variant needs, set while its ranks run.
  std::vector<std::pair<const char*, std::optional<std::string>>> environment;
  const transport::TransportEntry* entry;  // its create() and declared capabilities
};

std::vector<TransportUnderTest> transportsUnderTest();

// Sets a variant's environment for as long as it lives.
class VariantEnvironment {
 public:
  explicit VariantEnvironment(const TransportUnderTest& variant);

 private:
  std::vector<std::unique_ptr<ScopedEnv>> settings_;
};

}  // namespace trnccl::test
