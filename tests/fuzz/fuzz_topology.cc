// Topology files (TRNCCL_TOPO=path, topologies/*.json): any text. parseTopology
// refuses what it cannot use naming the value; what it accepts stays within
// the documented bounds, and every link and NIC names a chip that exists.
#include <cstdint>
#include <string>

#include "base/error.h"
#include "tests/fuzz/fuzz_check.h"
#include "topology/rank_map.h"
#include "topology/topology.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trnccl::topo;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Topology t;
  try {
    t = parseTopology(text, "fuzz.json");
  } catch (const trnccl::Error& e) {
    FUZZ_CHECK(e.code() == trncclInvalidArgument);
    return 0;
  }
  FUZZ_CHECK(t.chips >= 1 && t.chips <= kMaxChips);
  FUZZ_CHECK(t.coresPerChip >= 1 && t.coresPerChip <= kMaxCoresPerChip);
  FUZZ_CHECK(t.nodes >= 1 && t.nodes <= kMaxNodes);
  for (const Link& link : t.links) {
    FUZZ_CHECK(link.a >= 0 && link.a < t.chips && link.b >= 0 && link.b < t.chips);
    FUZZ_CHECK(link.bytesPerSec > 0);
  }
  for (const Nic& nic : t.nics) FUZZ_CHECK(nic.chip >= 0 && nic.chip < t.chips);
  // Mapping a job onto it works or is refused naming the variable.
  try {
    const int nranks = std::min(t.totalCores(), 256);
    FUZZ_CHECK(static_cast<int>(mapRanks(t, nranks, "", "TRNCCL_RANK_ORDER").size()) == nranks);
  } catch (const trnccl::Error& e) {
    FUZZ_CHECK(e.code() == trncclInvalidArgument);
  }
  return 0;
}
