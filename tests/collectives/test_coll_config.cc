// Per-call configuration (trncclCollConfig_t and the *Config collectives)
// and deterministic mode, through the public C API: a call runs the
// algorithm it names (the flight recorder's dump shows which ran), calls of
// one group may name different ones, bad fields are refused naming them,
// and in deterministic mode every algorithm gives the bits of a rank-order
// FP32 sum computed here, on threads and processes.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms/tuner.h"
#include "checks.h"
#include "deterministic_sweep.h"
#include "launcher.h"
#include "tests/support/scoped_env.h"
#include "thread_ranks.h"
#include "trace_support.h"

using namespace trnccl::test;

namespace {

trncclCollConfig_t choose(const char* algorithm, int deterministic = TRNCCL_CONFIG_UNDEF_INT, size_t chunk = 0) {
  trncclCollConfig_t config = TRNCCL_COLLCONFIG_INITIALIZER;
  config.algorithm = algorithm;
  config.deterministic = deterministic;
  config.chunkSize = chunk;
  return config;
}

// Rank r's element i: small integers, so every sum is exact in fp32 whatever
// the order, and the reference is computed here.
float input(int rank, size_t i) { return static_cast<float>((rank + 1) * 3 + static_cast<int>(i % 11)); }
float sumOf(int nranks, size_t i) {
  float s = 0;
  for (int q = 0; q < nranks; ++q) s += input(q, i);
  return s;
}

// The all-reduce of input() with `config`; 0 when it ran and every element is
// the reference sum.
int allReduceChecked(trncclComm_t comm, int rank, int nranks, size_t count, const trncclCollConfig_t* config) {
  std::vector<float> send(count), recv(count, -1);
  for (size_t i = 0; i < count; ++i) send[i] = input(rank, i);
  if (trncclAllReduceConfig(send.data(), recv.data(), count, trncclFloat32, trncclSum, comm, nullptr, config) !=
      trncclSuccess)
    return 1;
  for (size_t i = 0; i < count; ++i)
    if (recv[i] != sumOf(nranks, i)) return 2;
  return 0;
}

std::vector<std::string> algorithmsOf(const nlohmann::json& dump) {
  std::vector<std::string> names;
  for (const nlohmann::json& op : dump["ops"]) names.push_back(op["algorithm"].get<std::string>());
  return names;
}

}  // namespace

TEST_CASE("per-call config: each call runs the algorithm it names, also within one group", "[collconfig]") {
  const int n = 4;
  const size_t count = 5003;
  TempDir dir;
  ScopedEnv traceDir("TRNCCL_TRACE_DIR", dir.path().c_str());
  ScopedEnv algo("TRNCCL_ALGO", "ring");  // a call's choice wins over the communicator's
  const std::vector<int> results = runThenAbort(n, [&](trncclComm_t comm, int rank) {
    int failures = 0;
    const trncclCollConfig_t mesh = choose("mesh"), rdh = choose("rdh"), ringDet = choose("ring", 1, 4096);
    failures += allReduceChecked(comm, rank, n, count, &mesh);         // seq 1
    failures += allReduceChecked(comm, rank, n, count, nullptr) * 10;  // seq 2: TRNCCL_ALGO's
    // One group, three calls, three choices (seq 3, 4, 5).
    std::vector<float> a(count), b(count), g(count * n);
    for (size_t i = 0; i < count; ++i) a[i] = b[i] = input(rank, i);
    const trncclCollConfig_t meshGather = choose("mesh");
    failures += trncclGroupStart() == trncclSuccess ? 0 : 100;
    failures += trncclAllReduceConfig(a.data(), a.data(), count, trncclFloat32, trncclSum, comm, nullptr, &rdh);
    failures += trncclAllReduceConfig(b.data(), b.data(), count, trncclFloat32, trncclSum, comm, nullptr, &ringDet);
    failures += trncclAllGatherConfig(a.data(), g.data(), 1, trncclFloat32, comm, nullptr, &meshGather);
    failures += trncclGroupEnd() == trncclSuccess ? 0 : 1000;
    for (size_t i = 0; i < count; ++i)
      if (a[i] != sumOf(n, i) || b[i] != sumOf(n, i)) return failures + 10000;
    for (int q = 0; q < n; ++q)
      if (g[q] != sumOf(n, 0)) return failures + 100000;
    return failures;
  });
  REQUIRE(results == std::vector<int>(n, 0));
  for (int r = 0; r < n; ++r) {
    INFO("rank " << r);
    const std::vector<std::string> ran = algorithmsOf(dumpOf(dir.path(), r));
    CHECK(ran == std::vector<std::string>{"mesh", "ring", "rdh", "ring/deterministic", "mesh"});
  }
}

TEST_CASE("per-call config: bad fields are refused naming them, and the communicator stays usable", "[collconfig]") {
  const int n = 2;
  checkOnThreads(n, [&](trncclComm_t comm, int rank, FailureLog& log) {
    std::vector<float> send(64, 1.0f), recv(64);
    auto refused = [&](const char* what, const trncclCollConfig_t& config, const char* field) {
      const trncclResult_t rc =
          trncclAllReduceConfig(send.data(), recv.data(), 64, trncclFloat32, trncclSum, comm, nullptr, &config);
      const std::string message = rc == trncclSuccess ? "" : trncclGetLastError(comm);
      if (rc != trncclInvalidArgument || message.find(field) == std::string::npos)
        return log.fail(
            rank, std::string(what) + ": got " + std::to_string(rc) + " '" + message + "', want '" + field + "' named");
      return true;
    };
    trncclCollConfig_t bad = choose(nullptr);
    bad.magic = 0;
    bool ok = refused("no initializer", bad, "TRNCCL_COLLCONFIG_INITIALIZER");
    bad = choose(nullptr);
    bad.size = 8;
    ok &= refused("wrong size", bad, "TRNCCL_COLLCONFIG_INITIALIZER");
    ok &= refused("unknown algorithm", choose("spiral"), "config->algorithm");
    ok &= refused("an algorithm that cannot run it", choose("direct"), "config->algorithm");
    ok &= refused("hierarchical on one instance", choose("hierarchical"), "config->algorithm");
    ok &= refused("chunk not a whole element", choose(nullptr, TRNCCL_CONFIG_UNDEF_INT, 6), "config->chunkSize");
    ok &= refused("chunk too large", choose(nullptr, TRNCCL_CONFIG_UNDEF_INT, size_t{1} << 40), "config->chunkSize");
    ok &= refused("deterministic not 0 or 1", choose(nullptr, 2), "config->deterministic");
    // Refused calls take no sequence number: the ranks stay in step.
    const trncclCollConfig_t fine = choose("auto", 1, 256);
    if (allReduceChecked(comm, rank, n, 1000, &fine) != 0) ok = log.fail(rank, "a good call after the refusals");
    if (allReduceChecked(comm, rank, n, 1000, nullptr) != 0) ok = log.fail(rank, "a NULL config");
    return ok;
  });
}

TEST_CASE("per-call config: ranks that choose differently fail under TRNCCL_CHECK, naming the configuration",
          "[collconfig]") {
  ScopedEnv check("TRNCCL_CHECK", "1");
  checkOnThreads(2, [&](trncclComm_t comm, int rank, FailureLog& log) {
    const trncclCollConfig_t config = choose(rank == 0 ? "ring" : "mesh");
    std::vector<float> send(64, 1.0f), recv(64);
    const trncclResult_t rc =
        trncclAllReduceConfig(send.data(), recv.data(), 64, trncclFloat32, trncclSum, comm, nullptr, &config);
    const std::string message = rc == trncclSuccess ? "" : trncclGetLastError(comm);
    if (rc != trncclInvalidUsage || message.find("per-call configuration") == std::string::npos)
      return log.fail(rank, "got " + std::to_string(rc) + " '" + message + "'");
    return true;
  });
}

TEST_CASE("deterministic mode: a communicator config field that is not 0 or 1 is refused naming it",
          "[collconfig][deterministic]") {
  trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
  config.deterministic = 3;
  const ThreadJob job = runOnThreadsWithConfig(1, config, [](trncclComm_t, int) { return 0; });
  CHECK(job.init == trncclInvalidArgument);
  CHECK_THAT(job.initError, Catch::Contains("config->deterministic"));
}

namespace {

// The sweep on n thread ranks; per rank, the sweep's result.
std::vector<SweepResult> sweepOnThreads(int n, bool deterministic, uint64_t salt) {
  const std::vector<std::string> algorithms = trnccl::algo::Tuner::algorithmNames();
  std::vector<SweepResult> sweeps(static_cast<size_t>(n));
  const ThreadJob job = runOnThreads(n, [&](trncclComm_t comm, int rank) {
    const size_t count = n % 2 == 0 ? 4096 : 4099;  // blocks of equal size, and padded ones
    sweeps[static_cast<size_t>(rank)] = sweepAlgorithms(comm, algorithms, count, deterministic, salt);
    return sweeps[static_cast<size_t>(rank)].error.empty() ? 0 : 1;
  });
  INFO(n << " ranks: " << (sweeps[0].error.empty() ? job.initError : sweeps[0].error));
  REQUIRE(job.init == trncclSuccess);
  REQUIRE(job.results == std::vector<int>(static_cast<size_t>(n), 0));
  return sweeps;
}

std::string names(const std::vector<std::string>& list) {
  std::string text;
  for (const std::string& s : list) text += (text.empty() ? "" : ", ") + s;
  return text;
}

}  // namespace

TEST_CASE("deterministic mode: every algorithm gives the rank-order FP32 sum's bits, 2-16 thread ranks",
          "[deterministic]") {
  const uint64_t salt = 11;
  // Flat ranks, and two instances of trn1.32xlarge (torus2d, hierarchical).
  const bool twoInstances = GENERATE(false, true);
  const int n = twoInstances ? GENERATE(4, 8) : GENERATE(2, 3, 5, 8, 16);
  ScopedEnv topology("TRNCCL_TOPO", twoInstances ? "trn1.32xlarge:2" : nullptr);
  ScopedEnv order("TRNCCL_RANK_ORDER", twoInstances ? "spread" : nullptr);
  const std::vector<SweepResult> on = sweepOnThreads(n, true, salt);
  WARN(n << " ranks" << (twoInstances ? " on two instances" : "") << ", deterministic, ran: " << names(on[0].ran));
  CHECK(on[0].ran.size() >= 3);
  for (int r = 0; r < n; ++r) {
    INFO("rank " << r);
    CHECK(deterministicMismatch(on[static_cast<size_t>(r)], n, salt) == "");
    CHECK(on[static_cast<size_t>(r)].bits == on[0].bits);
  }
  // Without the mode the same algorithms may differ: say where they do.
  const std::vector<SweepResult> off = sweepOnThreads(n, false, salt);
  const std::vector<int> distinct = distinctResults(off[0]);
  std::string summary;
  for (size_t k = 0; k < distinct.size(); ++k)
    summary += "; " + describeCase(off[0].cases[k]) + ": " + std::to_string(distinct[k]) + " different results";
  WARN(n << " ranks without deterministic mode, " << off[0].ran.size() << " algorithms" << summary);
  if (n >= 5 && !twoInstances) CHECK(distinct[0] > 1);  // fp32 sums: ring and mesh add in different orders
}

TEST_CASE("deterministic mode: every algorithm gives the rank-order FP32 sum's bits (processes)",
          "[deterministic][processes]") {
  ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "60000");
  const int n = GENERATE(3, 8);
  const std::string algorithms = names(trnccl::algo::Tuner::algorithmNames());
  std::string list;
  for (char ch : algorithms)
    if (ch != ' ') list += ch;
  const WorkerJob job =
      runWorkers(TRNCCL_COLL_WORKER, n, {"--mode", "deterministic", "--algorithms", list}, std::chrono::seconds(240));
  INFO("workers (exit 1: an algorithm's bits differ, see stderr): " << describeJob(job));
  CHECK(exitedWith(job, {0}));
}
