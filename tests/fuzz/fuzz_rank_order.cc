// TRNCCL_RANK_ORDER ("core", "chip" or a comma list of NeuronCore indices)
// against a shipped-like topology and a rank count from the input. An
// accepted order places every rank on a NeuronCore of the topology, no two
// on the same one.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <set>
#include <string>
#include <tuple>

#include "base/error.h"
#include "tests/fuzz/fuzz_check.h"
#include "topology/rank_map.h"
#include "topology/topology.h"

namespace {

using namespace trnccl::topo;

// A 4x4 torus of 2-core chips (trn1.32xlarge's shape), two instances.
const char* kTorus = R"({"name": "fuzz-torus", "chips": 16, "coresPerChip": 2, "nodes": 2,
  "device": {"generation": "trainium"}, "onChip": {"bytesPerSec": 1e12, "latencySec": 0.5e-6},
  "torus": [4, 4], "neuronLink": {"bytesPerSec": 96e9, "latencySec": 1.5e-6},
  "efa": {"gbpsPerNic": 100, "nicChips": [0, 8], "latencySec": 15e-6}})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Topology topology = parseTopology(kTorus, "fuzz-torus.json");
  FuzzedDataProvider input(data, size);
  const int nranks = input.ConsumeIntegralInRange<int>(-1, 80);
  const std::string order = input.ConsumeRemainingBytesAsString();
  try {
    const std::vector<CoreLocation> where = mapRanks(topology, nranks, order, "TRNCCL_RANK_ORDER");
    FUZZ_CHECK(static_cast<int>(where.size()) == nranks);
    std::set<std::tuple<int, int, int>> used;
    for (const CoreLocation& at : where) {
      FUZZ_CHECK(at.node >= 0 && at.node < topology.nodes);
      FUZZ_CHECK(at.chip >= 0 && at.chip < topology.chips);
      FUZZ_CHECK(at.core >= 0 && at.core < topology.coresPerChip);
      FUZZ_CHECK(used.insert({at.node, at.chip, at.core}).second);
    }
  } catch (const trnccl::Error& e) {
    FUZZ_CHECK(e.code() == trncclInvalidArgument);
  }
  return 0;
}
