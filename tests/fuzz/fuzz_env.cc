// The environment-variable parsers, each fed the input as the variable's
// value (the first byte picks the parser): integers, booleans and choices
// (TRNCCL_TIMEOUT_MS, TRNCCL_CHECK, TRNCCL_DEBUG, ...), TRNCCL_ALGO's filter
// syntax, TRNCCL_OFI_FAULTS, TRNCCL_SOCKET_IFNAME's interface selection and
// TRNCCL_COMM_ID's address, TRNCCL_TOPO's "name:N". Each accepts a value or refuses it with
// InvalidArgument naming it; what it accepts obeys its contract.
#include <fuzzer/FuzzedDataProvider.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/algorithm_filter.h"
#include "algorithms/registry.h"
#include "base/env.h"
#include "base/error.h"
#include "base/socket.h"
#include "tests/fuzz/fuzz_check.h"
#include "topology/topology.h"
#include "transports/ofi/fault_injection.h"

namespace {

using namespace trnccl;

constexpr const char* kVariable = "TRNCCL_FUZZ_VALUE";

void parseInt(FuzzedDataProvider& input) {
  const auto low = input.ConsumeIntegral<int64_t>();
  const auto high = input.ConsumeIntegralInRange<int64_t>(low, INT64_MAX);
  setenv(kVariable, input.ConsumeRemainingBytesAsString().c_str(), 1);
  const int64_t value = env::getInt(kVariable, low, low, high);
  FUZZ_CHECK(value >= low && value <= high);
}

void parseChoice(FuzzedDataProvider& input) {
  setenv(kVariable, input.ConsumeRemainingBytesAsString().c_str(), 1);
  env::getBool(kVariable, false);
  const std::string level = env::getChoice(kVariable, "NONE", {"NONE", "WARN", "INFO", "TRACE"});
  FUZZ_CHECK(level == "NONE" || level == "WARN" || level == "INFO" || level == "TRACE");
}

void parseAlgorithmFilter(FuzzedDataProvider& input) {
  std::vector<std::string> known;
  for (const algo::RegisteredAlgorithm& a : algo::registeredAlgorithms()) known.push_back(a.name);
  const algo::AlgorithmFilter filter(input.ConsumeRemainingBytesAsString(), "TRNCCL_ALGO", known);
  for (auto c : {algo::Collective::AllReduce, algo::Collective::AllGather, algo::Collective::ReduceScatter,
                 algo::Collective::Broadcast, algo::Collective::Reduce, algo::Collective::AllToAll}) {
    for (const std::string& name : known) filter.allows(c, name);
  }
}

void parseFaults(FuzzedDataProvider& input) {
  const transport::ofi::FaultConfig faults = transport::ofi::parseFaults(input.ConsumeRemainingBytesAsString());
  FUZZ_CHECK(faults.maxDelay.count() >= 0);
}

void matchInterfaces(FuzzedDataProvider& input) {
  const std::vector<std::string> names = {"lo", "eth0", "eth1", "ib0", "docker0", "veth-a"};
  const std::vector<std::string> chosen = net::matchInterfaces(input.ConsumeRemainingBytesAsString(), names);
  // A selection, in the order of `names`, never an invented name.
  auto next = names.begin();
  for (const std::string& name : chosen) {
    next = std::find(next, names.end(), name);
    FUZZ_CHECK(next != names.end());
    ++next;
  }
}

void parseAddress(FuzzedDataProvider& input) {
  const net::SocketAddress address = net::SocketAddress::parse(input.ConsumeRemainingBytesAsString());
  // What it accepted prints as text it accepts again, to the same address.
  const std::string text = address.toString();
  FUZZ_CHECK(net::SocketAddress::parse(text).toString() == text);
  const auto wire = net::SocketAddress::fromWire(address.toWire());
  FUZZ_CHECK(wire && wire->toString() == text);
}

// TRNCCL_TOPO: a shipped name, optionally ":N" instances. Paths are left
// out: they would open whatever file the input names.
void loadTopology(FuzzedDataProvider& input) {
  const std::string spec = input.ConsumeRemainingBytesAsString();
  if (spec.find('/') != std::string::npos || spec.find(".json") != std::string::npos) return;
  const topo::Topology t = topo::loadTopology(spec);
  FUZZ_CHECK(t.nodes >= 1 && t.nodes <= topo::kMaxNodes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider input(data, size);
  using Parser = void (*)(FuzzedDataProvider&);
  constexpr Parser kParsers[] = {parseInt,        parseChoice,  parseAlgorithmFilter, parseFaults,
                                 matchInterfaces, parseAddress, loadTopology};
  const Parser parser = kParsers[input.ConsumeIntegralInRange<size_t>(0, std::size(kParsers) - 1)];
  try {
    parser(input);
  } catch (const Error& e) {
    FUZZ_CHECK(e.code() == trncclInvalidArgument);
  }
  return 0;
}
