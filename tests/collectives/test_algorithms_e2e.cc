// Every registered algorithm (algorithms/registry.h, read for the names and
// the collectives each implements), forced with TRNCCL_ALGO, through the
// public C API on the placements that shape it: flat groups torus2d factors
// (4 = 2 x 2, 6 = 2 x 3, 16 = 4 x 4), grids of trn1.32xlarge chips, and jobs
// over several instances for the hierarchical algorithms. Each collective it implements runs the
// matrix (matrix.h: results checked element by element against references
// computed in the test) for float32, bfloat16, int32 and float8e4m3, the
// reduction ops (every one up to 8 ranks), counts 0, 1, 37 (a multiple of no
// rank count) and sizes that span many slices, in place and out of place.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/registry.h"
#include "checks.h"
#include "tests/support/scoped_env.h"
#include "transports/factory.h"
#include "two_instances.h"

using namespace trnccl::test;
namespace algo = trnccl::algo;

namespace {

// Where the ranks run: TRNCCL_TOPO and TRNCCL_RANK_ORDER (NULL: unset), and
// what carries the bytes between instances (null: shared memory only).
struct Placement {
  const char* topology;
  const char* rankOrder;
  int nranks;
  const TwoInstances* network = nullptr;
};

const std::vector<trncclDataType_t> kTypes = {trncclFloat32, trncclBfloat16, trncclInt32, trncclFloat8e4m3};

// An all-reduce count whose blocks each span more than the slices in flight
// on up to 16 ranks: with TRNCCL_SLICE_BYTES=4096 and TRNCCL_WINDOW=1, a
// block of 17011 / 16 float32 elements is 4.2 KB.
constexpr size_t kMultiSliceCount = 17011;

// The collectives `algorithm` implements, as it says on a group of `nranks`
// (split over two instances for one that needs them; which collectives it
// implements does not depend on where the ranks sit), within reach of an
// `nranks` job: broadcast and reduce run every root, so only small jobs run
// them.
std::vector<Collective> collectivesOf(const algo::RegisteredAlgorithm& algorithm, int nranks) {
  algo::RankLayout twoInstances;
  for (int r = 0; r < nranks; ++r) twoInstances.instanceOf.push_back(2 * r / nranks);
  algo::RankLayout twoCoresPerChip;  // a row of chips
  twoCoresPerChip.gridWidth = nranks, twoCoresPerChip.gridHeight = 1, twoCoresPerChip.ranksPerChip = 2;
  for (int r = 0; r < nranks; ++r) twoCoresPerChip.grid.push_back(r);
  const auto implementation = algorithm.make();
  std::vector<Collective> colls;
  for (Collective coll : allColls()) {
    if (coll == Collective::SendRecv) continue;  // the library's point-to-point path, not an algorithm
    algo::CollectiveArgs args{coll, 0, nranks, 37};
    if (algorithm.reach == algo::Reach::Instances) args.layout = &twoInstances;
    if (algorithm.reach == algo::Reach::Chips) args.layout = &twoCoresPerChip;
    const bool everyRoot = coll == Collective::Broadcast || coll == Collective::Reduce || coll == Collective::Gather ||
                           coll == Collective::Scatter;
    if (implementation->whyUnsupported(args).empty() && (!everyRoot || nranks <= 6)) colls.push_back(coll);
  }
  return colls;
}

// The matrices one algorithm runs on `nranks` ranks. Beyond 8 ranks, where
// every rank is a thread on a 2-core machine, fewer ops: the algorithms
// treat every op alike but avg, which the last reduction divides, so sum
// and avg run there (and max on float8e4m3), every op on the smaller jobs.
// The matrix's float inputs keep partial results exact up to 8 ranks
// (values.h); beyond, sums leave float8e4m3's exact integers.
std::vector<MatrixOptions> matricesFor(const algo::RegisteredAlgorithm& algorithm, int nranks) {
  MatrixOptions main;
  main.collectives = collectivesOf(algorithm, nranks);
  main.counts = {0, 1, 37, kLargeCount};
  main.largeTypes = {trncclFloat32, trncclBfloat16};
  main.maxReports = 4;
  std::vector<MatrixOptions> matrices;
  if (nranks <= 8) {
    main.types = kTypes;
    matrices.push_back(main);
  } else {
    main.types = {trncclFloat32, trncclBfloat16, trncclInt32};
    main.ops = {trncclSum, trncclAvg};
    matrices.push_back(main);
    MatrixOptions fp8 = main;
    fp8.types = {trncclFloat8e4m3};
    fp8.ops = {trncclMax};
    fp8.salt = 2;
    matrices.push_back(fp8);
  }
  const auto& colls = main.collectives;
  if (std::find(colls.begin(), colls.end(), Collective::AllReduce) == colls.end()) return matrices;
  MatrixOptions multiSlice = main;
  multiSlice.collectives = {Collective::AllReduce};
  multiSlice.types = {trncclFloat32};
  multiSlice.ops = {trncclSum};
  multiSlice.counts = {kMultiSliceCount};
  multiSlice.salt = 3;
  matrices.push_back(multiSlice);
  return matrices;
}

std::string placementText(const Placement& where) {
  return std::to_string(where.nranks) + " ranks, TRNCCL_TOPO=" + (where.topology ? where.topology : "(unset)") +
         ", TRNCCL_RANK_ORDER=" + (where.rankOrder ? where.rankOrder : "(unset)") + ", between instances " +
         (where.network ? where.network : &kSharedMemoryOnly)->name;
}

// `algorithm`'s matrices on thread ranks placed as `where`, with TRNCCL_ALGO=algorithm.
void checkAlgorithm(const Placement& where, const std::string& name) {
  const auto& registered = algo::registeredAlgorithms();
  const auto found = std::find_if(registered.begin(), registered.end(), [&](const auto& a) { return a.name == name; });
  INFO("TRNCCL_ALGO=" << name);
  REQUIRE(found != registered.end());
  const algo::RegisteredAlgorithm& algorithm = *found;
  ScopedTwoInstances carried(where.network ? *where.network : kSharedMemoryOnly);
  ScopedEnv topology("TRNCCL_TOPO", where.topology), order("TRNCCL_RANK_ORDER", where.rankOrder);
  ScopedEnv forced("TRNCCL_ALGO", name.c_str()), window("TRNCCL_WINDOW", "1");
  setMatrixEnvironment();
  std::vector<MatrixOptions> matrices = matricesFor(algorithm, where.nranks);
  // Across a network transport the algorithms are the same: fewer types.
  if (where.network)
    for (MatrixOptions& m : matrices)
      if (m.types.size() > 1) m.types = {trncclFloat32, trncclBfloat16};
  const ThreadJob run = runOnThreads(where.nranks, [&](trncclComm_t comm, int) {
    int failures = 0;
    for (const MatrixOptions& m : matrices) failures += runMatrix(comm, m);
    return failures;
  });
  INFO("TRNCCL_ALGO=" << name << " on " << placementText(where) << ": " << run.initError);
  REQUIRE(run.init == trncclSuccess);
  INFO("failed cases per rank (details on stderr): " << describeResults(run.results));
  CHECK(run.results == std::vector<int>(static_cast<size_t>(where.nranks), 0));
  CHECK(run.destroy == trncclSuccess);
}

// The names of the registered algorithms that can run where `reach` says.
std::vector<std::string> reaching(algo::Reach reach) {
  std::vector<std::string> names;
  for (const algo::RegisteredAlgorithm& a : algo::registeredAlgorithms())
    if (a.reach == reach) names.push_back(a.name);
  return names;
}

}  // namespace

TEST_CASE("algorithms e2e: every algorithm on 4 ranks without a topology (torus2d: 2 x 2)", "[algorithms-e2e]") {
  for (const std::string& algorithm : reaching(algo::Reach::AnyRanks)) {
    SECTION(algorithm) { checkAlgorithm({nullptr, nullptr, 4}, algorithm); }
  }
}

TEST_CASE("algorithms e2e: every algorithm on 6 ranks without a topology (torus2d: 2 x 3)", "[algorithms-e2e]") {
  for (const std::string& algorithm : reaching(algo::Reach::AnyRanks)) {
    SECTION(algorithm) { checkAlgorithm({nullptr, nullptr, 6}, algorithm); }
  }
}

TEST_CASE("algorithms e2e: every algorithm on 16 ranks of trn1.32xlarge, one per chip (4 x 4)", "[algorithms-e2e]") {
  for (const std::string& algorithm : reaching(algo::Reach::AnyRanks)) {
    SECTION(algorithm) { checkAlgorithm({"trn1.32xlarge", "chip", 16}, algorithm); }
  }
}

TEST_CASE("algorithms e2e: torus2d on the grids placements form", "[algorithms-e2e][torus2d]") {
  // NeuronCore 0 of chips 0, 1, 4, 5 (global core = 2 x chip): a 2 x 2 block of the 4 x 4 torus.
  SECTION("2 x 2 chips of trn1.32xlarge") { checkAlgorithm({"trn1.32xlarge", "0,2,8,10", 4}, "torus2d"); }
  // Chips 0, 1, 4, 5, 8, 9: two columns of three rows.
  SECTION("2 x 3 chips of trn1.32xlarge") { checkAlgorithm({"trn1.32xlarge", "0,2,8,10,16,18", 6}, "torus2d"); }
  // Both NeuronCores of chips 0, 1, 4, 5: 4 NeuronCores wide (two per chip), 2 rows.
  SECTION("4 x 2 NeuronCores of trn1.32xlarge") {
    checkAlgorithm({"trn1.32xlarge", "0,1,2,3,8,9,10,11", 8}, "torus2d");
  }
  SECTION("16 ranks without a topology: 4 x 4") { checkAlgorithm({nullptr, nullptr, 16}, "torus2d"); }
}

TEST_CASE("algorithms e2e: kangaring on whole chips of trn1.32xlarge and trn2.48xlarge",
          "[algorithms-e2e][kangaring]") {
  // Chips 0 and 1 (cores 2 x chip and 2 x chip + 1): a ring of two chips.
  SECTION("2 chips") { checkAlgorithm({"trn1.32xlarge", "0,1,2,3", 4}, "kangaring"); }
  // Chips 0, 1, 4, 5: a 2 x 2 block of chips.
  SECTION("2 x 2 chips") { checkAlgorithm({"trn1.32xlarge", "0,1,2,3,8,9,10,11", 8}, "kangaring"); }
  // The whole instance: two Hamiltonian cycles of the 4 x 4 chip torus.
  SECTION("4 x 4 chips") { checkAlgorithm({"trn1.32xlarge", nullptr, 32}, "kangaring"); }
  // trn2.48xlarge chips 0 and 1: four NeuronCores each, three secondaries per primary.
  SECTION("2 chips of trn2.48xlarge") { checkAlgorithm({"trn2.48xlarge", "0,1,2,3,4,5,6,7", 8}, "kangaring"); }
}

TEST_CASE("algorithms e2e: the chip algorithms on whole chips of trn1.32xlarge and trn2.48xlarge",
          "[algorithms-e2e][hierarchical]") {
  for (const std::string& algorithm : reaching(algo::Reach::Chips)) {
    // Chips 0, 1, 4, 5, both cores of each: a 2 x 2 block of chips.
    SECTION(algorithm + " on 2 x 2 chips") { checkAlgorithm({"trn1.32xlarge", "0,1,2,3,8,9,10,11", 8}, algorithm); }
    // trn2.48xlarge chips 0 and 1: four NeuronCores each.
    SECTION(algorithm + " on 2 chips of trn2.48xlarge") {
      checkAlgorithm({"trn2.48xlarge", "0,1,2,3,4,5,6,7", 8}, algorithm);
    }
  }
}

TEST_CASE("algorithms e2e: the hierarchical algorithms across instances", "[algorithms-e2e][hierarchical]") {
  for (const std::string& algorithm : reaching(algo::Reach::Instances)) {
    // 4 instances of 2 NeuronCores: 2 ranks per instance, 4 across.
    SECTION(algorithm + " on trn1.2xlarge:4") { checkAlgorithm({"trn1.2xlarge:4", nullptr, 8}, algorithm); }
    // Chips 0, 2, 4 of each of 2 instances (32 NeuronCores each): 3 per instance, 2 across.
    SECTION(algorithm + " on trn1.32xlarge:2, 3 ranks each") {
      checkAlgorithm({"trn1.32xlarge:2", "0,4,8,32,36,40", 6}, algorithm);
    }
  }
}

TEST_CASE("algorithms e2e: forcing hierarchical on instances with unequal rank counts is trncclInvalidUsage",
          "[algorithms-e2e][hierarchical]") {
  ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge:2"), order("TRNCCL_RANK_ORDER", "0,2,4,32");
  ScopedEnv algo("TRNCCL_ALGO", "hierarchical");
  setMatrixEnvironment();
  checkOnThreads(4, [](trncclComm_t comm, int r, FailureLog& log) {
    float in = 1, out = 0;
    if (!log.expect(r, "trncclAllReduce", trncclAllReduce(&in, &out, 1, trncclFloat32, trncclSum, comm, nullptr),
                    trncclInvalidUsage, comm))
      return false;
    const std::string message = trncclGetLastError(comm);
    if (message.find("as many ranks on every instance") == std::string::npos)
      return log.fail(r, "the error does not say the instances differ: " + message);
    return true;
  });
}

TEST_CASE("algorithms e2e: kangaring and mesh as processes on 2 and 8 ranks of trn1.32xlarge (whole chips)",
          "[algorithms-e2e][processes][kangaring]") {
  ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge");
  for (const char* algorithm : {"kangaring", "mesh"})
    for (int nranks : {2, 8}) {
      SECTION(std::string(algorithm) + " on " + std::to_string(nranks) + " ranks") {
        ScopedEnv algo("TRNCCL_ALGO", algorithm);
        checkProcessMatrix(nranks, {"--colls", "allreduce,allgather,reducescatter", "--large-types", "float"});
      }
    }
}

TEST_CASE("algorithms e2e: per-collective TRNCCL_ALGO across 2 instances (4 processes)",
          "[algorithms-e2e][processes]") {
  // Two ranks on each of two trn1.32xlarge instances; the layout has
  // instances but no grid, so torus2d factors 4 ranks as 2 x 2.
  ScopedEnv topology("TRNCCL_TOPO", "trn1.32xlarge:2"), order("TRNCCL_RANK_ORDER", "0,2,32,34");
  ScopedEnv algo("TRNCCL_ALGO", "allreduce:hierarchical_rdh;allgather:torus2d;reducescatter:rdh");
  checkProcessMatrix(4, {"--colls", "allreduce,allgather,reducescatter", "--large-types", "float,bfloat16"});
}

TEST_CASE("algorithms e2e: every algorithm on 2 instances x 2 ranks over each network transport",
          "[algorithms-e2e][transports]") {
  // Every network transport of the factory over each of its paths that
  // crosses instances (ofi: udp;ofi_rxd is the closest to EFA's).
  const std::vector<TwoInstances> networks = twoInstanceNetworks();
  for (const TwoInstances& net : networks) {
    if (!net.transport) continue;  // shared memory alone: the tests above
    for (const algo::RegisteredAlgorithm& algorithm : algo::registeredAlgorithms()) {
      if (algorithm.reach == algo::Reach::Chips) continue;  // within one instance only
      SECTION(net.name + " " + algorithm.name) { checkAlgorithm({net.topology, nullptr, 4, &net}, algorithm.name); }
    }
  }
}
