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
#include "tests/transports/launch.h"
#include "transports/registration.h"

namespace trnccl::test {

struct TransportUnderTest {
  std::string name;
  // Environment the variant needs, set while its ranks run.
  std::vector<std::pair<const char*, std::optional<std::string>>> environment;
  const transport::TransportEntry* entry;  // its create() and declared capabilities
  bool keepsBytesIntact = true;            // Path::keepsBytesIntact
};

std::vector<TransportUnderTest> transportsUnderTest();

// requireAllOk, except that over a path that does not keep bytes intact a
// run also passes when a rank caught corrupted bytes ("arrived corrupted"),
// no rank found wrong data in what it received, and every rank that failed
// did so with an error (none timed out or was killed).
void requireIntactOrCaught(const std::string& name, bool keepsBytesIntact, const std::vector<RankResult>& results);
inline void requireIntactOrCaught(const TransportUnderTest& variant, const std::vector<RankResult>& results) {
  requireIntactOrCaught(variant.name, variant.keepsBytesIntact, results);
}

// Sets a variant's environment for as long as it lives.
class VariantEnvironment {
 public:
  explicit VariantEnvironment(const TransportUnderTest& variant);

 private:
  std::vector<std::unique_ptr<ScopedEnv>> settings_;
};

}  // namespace trnccl::test
