// The transports (and their variants) the conformance suite runs against:
// every transport of the factory (transports/factory.h), with its defaults
// unless transports_under_test.cc lists settings to test it under.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/transports/check.h"
#include "transports/transport.h"

namespace trnccl::test {

struct TransportUnderTest {
  std::string name;
  // Environment the variant needs, set while its ranks run.
  std::vector<std::pair<const char*, std::optional<std::string>>> environment;
  std::function<std::unique_ptr<transport::Transport>(const transport::Options&)> create;
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
