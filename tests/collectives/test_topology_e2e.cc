// Topologies through the public C API: communicators split along the rows
// and columns of a trn1.32xlarge torus (and across it), NeuronLink timing
// emulation, and the errors for topologies and placements that cannot be.
// Results are checked by the matrix (matrix.h) against references computed
// in the test.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "checks.h"
#include "tests/support/scoped_env.h"

using namespace trnccl::test;

namespace {

// Chip order on trn1.32xlarge: rank r runs on chip kSnake4x4[r] of the 4 x 4
// torus, whose chips are numbered row-major (row = chip / 4, column = chip % 4).
const std::vector<int> kSnake4x4{0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12};

// A few of everything on a split: the reductions and the all-gather, with a
// count that spans slices.
MatrixOptions splitMatrix(uint64_t salt) {
  MatrixOptions options;
  options.collectives = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter};
  options.types = {trncclFloat32, trncclBfloat16, trncclInt32, trncclFloat8e4m3};
  options.ops = {trncclSum, trncclMax, trncclAvg};
  options.counts = {0, 1, 37, kLargeCount};
  options.largeTypes = {trncclFloat32};
  options.salt = salt;
  options.maxReports = 4;
  return options;
}

// Splits `comm` (rank r of the parent) by `color` with config.algorithm =
// `algorithm`, runs splitMatrix on the new communicator and destroys it.
// False when the split failed (the ranks no longer match up); wrong results
// go to the log.
bool runOnSplit(trncclComm_t comm, int r, int color, const char* algorithm, uint64_t salt, FailureLog& log) {
  trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
  config.algorithm = algorithm;
  trncclComm_t sub = nullptr;
  if (!log.expect(r, "trncclCommSplit", trncclCommSplit(comm, color, r, &sub, &config), trncclSuccess, comm))
    return false;
  if (color == TRNCCL_SPLIT_NOCOLOR) return true;
  if (const int failures = runMatrix(sub, splitMatrix(salt)); failures != 0)
    log.fail(r, std::to_string(failures) + " failed cases with " + algorithm + " on the split of color " +
                    std::to_string(color) + " (details on stderr)");
  log.expect(r, "trncclCommDestroy(split)", trncclCommDestroy(sub), trncclSuccess, nullptr);
  return true;
}

// What the communicator's tuner predicts for a 1024-element float all-reduce.
double predictedAllReduceUs(trncclComm_t comm) {
  char name[TRNCCL_ALGO_NAME_MAX];
  double us = -1;
  if (trncclCommGetAlgorithm(comm, "allreduce", 1024, trncclFloat32, name, &us) != trncclSuccess) return -1;
  return us;
}

// Creates nranks thread communicators (trncclCommInitAll) from the current
// environment and destroys them; returns the result and the error message.
std::pair<trncclResult_t, std::string> initAll(int nranks) {
  std::vector<trncclComm_t> comms(static_cast<size_t>(nranks), nullptr);
  const trncclResult_t rc = trncclCommInitAll(comms.data(), nranks, nullptr);
  const std::string message = rc == trncclSuccess ? "" : trncclGetLastError(nullptr);
  if (rc == trncclSuccess)
    for (trncclComm_t c : comms) trncclCommDestroy(c);
  return {rc, message};
}

// One rank on a fresh unique id, with `config` (NULL: none).
std::pair<trncclResult_t, std::string> initOne(trncclConfig_t* config) {
  trncclUniqueId id;
  REQUIRE(trncclGetUniqueId(&id) == trncclSuccess);
  trncclComm_t comm = nullptr;
  const trncclResult_t rc = trncclCommInitRankConfig(&comm, 1, id, 0, config);
  const std::string message = rc == trncclSuccess ? "" : trncclGetLastError(nullptr);
  if (comm) trncclCommDestroy(comm);
  return {rc, message};
}

void requireRefused(const std::pair<trncclResult_t, std::string>& outcome, trncclResult_t code,
                    const std::vector<std::string>& named) {
  INFO("returned " << outcome.first << ": " << outcome.second);
  CHECK(outcome.first == code);
  for (const std::string& what : named) CHECK(outcome.second.find(what) != std::string::npos);
}

}  // namespace

TEST_CASE("topology e2e: splits along the rows and columns of a 4 x 4 trn1.32xlarge run torus2d and ring",
          "[topology-e2e][split]") {
  ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge"), order("TRNCCL_RANK_ORDER", "chip");
  setMatrixEnvironment();
  checkOnThreads(16, [](trncclComm_t comm, int r, FailureLog& log) {
    const int row = kSnake4x4[r] / 4, column = kSnake4x4[r] % 4;
    return runOnSplit(comm, r, row, "torus2d", 1, log) && runOnSplit(comm, r, column, "torus2d", 2, log) &&
           runOnSplit(comm, r, row, "ring", 3, log) && runOnSplit(comm, r, column, "ring", 4, log);
  });
}

TEST_CASE("topology e2e: torus2d on splits that form a 2 x 2 block and no grid at all", "[topology-e2e][split]") {
  ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge"), order("TRNCCL_RANK_ORDER", "chip");
  setMatrixEnvironment();
  checkOnThreads(16, [](trncclComm_t comm, int r, FailureLog& log) {
    // Ranks 2, 3, 4, 5 are on chips 2, 3, 7, 6: a 2 x 2 block. Ranks 0, 5,
    // 10 are on chips 0, 6, 10: three rows, two columns, no grid (torus2d
    // factors 3 ranks as one ring).
    const int block = r >= 2 && r <= 5 ? 0 : TRNCCL_SPLIT_NOCOLOR;
    const int scattered = r == 0 || r == 5 || r == 10 ? 1 : TRNCCL_SPLIT_NOCOLOR;
    return runOnSplit(comm, r, block, "torus2d", 5, log) && runOnSplit(comm, r, scattered, "torus2d", 6, log);
  });
}

TEST_CASE("topology e2e: a split keeps its ranks' NeuronCores", "[topology-e2e][split]") {
  // The tuner prices the routes between the ranks' NeuronCores, so a split of
  // chips 0, 6, 10 must predict what a communicator created on those cores
  // predicts, and not what one on the first three chips does.
  ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge"), algo("TRNCCL_ALGO", "ring");
  double listed = 0, firstChips = 0;
  {
    ScopedEnv order("TRNCCL_RANK_ORDER", "0,12,20");  // chips 0, 6, 10
    checkOnThreads(3, [&](trncclComm_t comm, int r, FailureLog&) {
      if (r == 0) listed = predictedAllReduceUs(comm);
      return true;
    });
  }
  {
    ScopedEnv order("TRNCCL_RANK_ORDER", "chip");  // chips 0, 1, 2
    checkOnThreads(3, [&](trncclComm_t comm, int r, FailureLog&) {
      if (r == 0) firstChips = predictedAllReduceUs(comm);
      return true;
    });
  }
  ScopedEnv order("TRNCCL_RANK_ORDER", "chip");
  double split = 0;
  checkOnThreads(16, [&](trncclComm_t comm, int r, FailureLog& log) {
    const int color = r == 0 || r == 5 || r == 10 ? 0 : TRNCCL_SPLIT_NOCOLOR;
    trncclComm_t sub = nullptr;
    if (!log.expect(r, "trncclCommSplit", trncclCommSplit(comm, color, r, &sub, nullptr), trncclSuccess, comm))
      return false;
    if (r == 0) split = predictedAllReduceUs(sub);
    if (sub) log.expect(r, "trncclCommDestroy(split)", trncclCommDestroy(sub), trncclSuccess, nullptr);
    return true;
  });
  INFO("predicted us: split " << split << ", created on the same cores " << listed << ", on chips 0-2 " << firstChips);
  CHECK(listed > 0);
  CHECK(split == listed);
  CHECK(firstChips != listed);
}

TEST_CASE("topology e2e: TRNCCL_EMULATE_LINKS paces the transfers and the results stay right",
          "[topology-e2e][emulation]") {
  ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge"), links("TRNCCL_EMULATE_LINKS", "1");
  ScopedEnv scale("TRNCCL_EMULATE_SCALE", "10");
  MatrixOptions options;
  options.collectives = {Collective::AllReduce};
  options.types = {trncclFloat32, trncclBfloat16, trncclInt32};
  options.ops = {trncclSum, trncclMax, trncclAvg};
  options.counts = {1, 37, kLargeCount};
  options.salt = 8;
  SECTION("ring, two ranks on each of two chips") {
    ScopedEnv algo("TRNCCL_ALGO", "ring");
    checkThreadMatrix(4, options);
  }
  SECTION("torus2d on a 2 x 2 block of chips") {
    ScopedEnv order("TRNCCL_RANK_ORDER", "0,2,8,10"), algo("TRNCCL_ALGO", "torus2d");
    checkThreadMatrix(4, options);
  }
}

TEST_CASE("topology e2e: TRNCCL_EMULATE_LINKS without a topology, or with a bad scale, is refused",
          "[topology-e2e][emulation][errors]") {
  ScopedEnv links("TRNCCL_EMULATE_LINKS", "1"), topology("TRNCCL_TOPO", nullptr);
  requireRefused(initAll(2), trncclInvalidUsage, {"TRNCCL_TOPO"});
  ScopedEnv withTopology("TRNCCL_TOPO", "trn1.32xlarge"), scale("TRNCCL_EMULATE_SCALE", "0");
  requireRefused(initAll(2), trncclInvalidArgument, {"TRNCCL_EMULATE_SCALE"});
}

TEST_CASE("topology e2e: unknown topologies are trncclInvalidArgument naming where they came from",
          "[topology-e2e][errors]") {
  SECTION("TRNCCL_TOPO=nonexistent: trncclCommInitAll and trncclCommInitRank, listing the shipped names") {
    ScopedEnv topology("TRNCCL_TOPO", "nonexistent");
    requireRefused(initAll(2), trncclInvalidArgument, {"TRNCCL_TOPO", "nonexistent", "trn1.32xlarge"});
    requireRefused(initOne(nullptr), trncclInvalidArgument, {"TRNCCL_TOPO", "trn1.2xlarge", "trn2.48xlarge"});
  }
  SECTION("TRNCCL_TOPO with a bad instance count") {
    ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge:0");
    requireRefused(initAll(2), trncclInvalidArgument, {"TRNCCL_TOPO", ":0"});
  }
  SECTION("config->topology naming a file that does not exist") {
    trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
    config.topology = "/nonexistent/trn1.json";
    requireRefused(initOne(&config), trncclInvalidArgument, {"config->topology", "/nonexistent/trn1.json"});
  }
  SECTION("config->topology naming a file that is not a topology") {
    const std::filesystem::path file =
        std::filesystem::temp_directory_path() / ("trnccl-bad-topology-" + std::to_string(getpid()) + ".json");
    std::ofstream(file) << "{ \"name\": \"broken\", \"chips\": \"sixteen\" }\n";
    trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
    const std::string path = file.string();
    config.topology = path.c_str();
    const auto outcome = initOne(&config);
    std::filesystem::remove(file);
    requireRefused(outcome, trncclInvalidArgument, {"config->topology", "chips"});
  }
}

TEST_CASE("topology e2e: placements that do not fit are trncclInvalidArgument naming TRNCCL_RANK_ORDER",
          "[topology-e2e][errors]") {
  SECTION("4 ranks on trn1.2xlarge (2 NeuronCores)") {
    ScopedEnv topology("TRNCCL_TOPO", "trn1.2xlarge");
    requireRefused(initAll(4), trncclInvalidArgument, {"TRNCCL_RANK_ORDER", "trn1.2xlarge:2"});
  }
  SECTION("a NeuronCore listed twice") {
    ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge"), order("TRNCCL_RANK_ORDER", "4,4");
    requireRefused(initAll(2), trncclInvalidArgument, {"TRNCCL_RANK_ORDER", "NeuronCore 4"});
  }
  SECTION("an order that is no order") {
    ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge"), order("TRNCCL_RANK_ORDER", "diagonal");
    requireRefused(initAll(2), trncclInvalidArgument, {"TRNCCL_RANK_ORDER", "diagonal"});
  }
}
