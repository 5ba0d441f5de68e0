// The factory's list of transports: every folder of transports.cmake
// registered under its name, what each reaches and declares, the automatic
// choice, and that the conformance suite runs every one of them.
#include <algorithm>
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "base/error.h"
#include "tests/transports/transports_under_test.h"
#include "transports/factory.h"

using namespace trnccl;
using namespace trnccl::transport;

TEST_CASE("factory: every transport of transports.cmake, in its order, has its own name and can be found by it",
          "[factory]") {
  const std::vector<std::string> names = transportNames();
  std::string listed;
  for (const std::string& name : names) listed += (listed.empty() ? "" : ",") + name;
  CHECK(listed == TRNCCL_TRANSPORT_FOLDERS);
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  for (const std::string& name : names) CHECK(transportNamed(name).name == name);
}

TEST_CASE("factory: an unknown transport is an invalid argument naming it", "[factory]") {
  try {
    transportNamed("carrier-pigeon");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == trncclInvalidArgument);
    CHECK(std::string(e.what()) == "argument 'transport' 'carrier-pigeon' is not a transport of this build");
  }
}

TEST_CASE("factory: shm serves an instance, ofi is preferred over tcp between instances", "[factory]") {
  CHECK(transportNamed("shm").reach == Reach::Instance);
  CHECK(transportNamed("ofi").reach == Reach::Network);
  CHECK(transportNamed("tcp").reach == Reach::Network);
  REQUIRE(preferredTransport(Reach::Instance) != nullptr);
  REQUIRE(preferredTransport(Reach::Network) != nullptr);
  CHECK(std::string(preferredTransport(Reach::Instance)->name) == "shm");
  CHECK(std::string(preferredTransport(Reach::Network)->name) == "ofi");
  // Today's transports in that order; a new one may go anywhere.
  const std::vector<std::string> network = transportNames(Reach::Network);
  const auto ofi = std::find(network.begin(), network.end(), "ofi");
  const auto tcp = std::find(network.begin(), network.end(), "tcp");
  CHECK(ofi < tcp);
  CHECK(tcp != network.end());
  CHECK(transportNames(Reach::Instance).front() == "shm");
}

TEST_CASE("factory: a transport declares a path setting exactly when it declares paths to run over", "[factory]") {
  for (const TransportEntry& t : transports()) {
    CAPTURE(t.name);
    CHECK((t.capabilities.pathSetting != nullptr) == !t.capabilities.paths.empty());
  }
  CHECK(std::string(transportNamed("ofi").capabilities.pathSetting) == "TRNCCL_OFI_PROVIDER");
  CHECK(transportNamed("ofi").capabilities.rails);
  CHECK(transportNamed("shm").capabilities.registration);
  CHECK_FALSE(transportNamed("tcp").capabilities.registration);
}

TEST_CASE("factory: the conformance suite runs every transport of the factory", "[factory]") {
  std::set<std::string> tested;
  for (const test::TransportUnderTest& variant : test::transportsUnderTest())
    tested.insert(variant.name.substr(0, variant.name.find('/')));
  const std::vector<std::string> names = transportNames();
  CHECK(tested == std::set<std::string>(names.begin(), names.end()));
}

TEST_CASE("factory: a variant keeps bytes intact as the path it runs over is declared to", "[factory]") {
  const Capabilities& ofi = transportNamed("ofi").capabilities;
  CHECK(ofi.keepsBytesIntact("tcp;ofi_rxm"));
  CHECK_FALSE(ofi.keepsBytesIntact("udp;ofi_rxd"));
  CHECK(ofi.keepsBytesIntact("a path nobody declared"));
  int overRxd = 0;
  for (const test::TransportUnderTest& variant : test::transportsUnderTest()) {
    CAPTURE(variant.name);
    const bool overRxdPath = variant.name.find("udp;ofi_rxd") != std::string::npos;
    overRxd += overRxdPath;
    CHECK(variant.keepsBytesIntact == !overRxdPath);
  }
  CHECK(overRxd == 2);  // the declared path and the EFA-like tuning over it
}
