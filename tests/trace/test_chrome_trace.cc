// TRNCCL_TRACE: a trace-event file per rank (%r) with the collectives, steps
// and transfers, well-formed for Chrome/Perfetto, merged by trnccl-trace.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <vector>

#include "merge.h"
#include "tests/support/scoped_env.h"
#include "thread_ranks.h"
#include "trace_support.h"

using trnccl::test::ScopedEnv;
using namespace trnccl::test;
using nlohmann::json;

namespace {

// The checks Chrome's and Perfetto's importers make of complete events, and
// what each rank's trace must hold.
void checkTraceFile(const json& trace, int nranks, size_t collectives) {
  REQUIRE(trace.is_object());
  REQUIRE(trace["traceEvents"].is_array());
  std::map<std::string, size_t> byCategory;
  std::set<int64_t> pids;
  std::map<std::pair<int64_t, int64_t>, double> trackEnd;  // slices of one track must not overlap
  size_t overlaps = 0;
  for (const json& e : trace["traceEvents"]) {
    REQUIRE(e["ph"].is_string());
    REQUIRE(e["pid"].is_number_integer());
    if (e["ph"] == "M") {
      CHECK(e["args"]["name"].is_string());
      continue;
    }
    REQUIRE(e["ph"] == "X");
    REQUIRE(e["tid"].is_number_integer());
    REQUIRE(e["ts"].is_number());
    REQUIRE(e["dur"].is_number());
    REQUIRE(e["name"].is_string());
    CHECK(e["dur"].get<double>() >= 0);
    ++byCategory[e["cat"].get<std::string>()];
    pids.insert(e["pid"].get<int64_t>());
    if (e["cat"] != "collective") {
      double& end = trackEnd[{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}];
      if (e["ts"].get<double>() + 1e-3 < end) ++overlaps;
      end = e["ts"].get<double>() + e["dur"].get<double>();
    }
  }
  CHECK(pids.size() == static_cast<size_t>(nranks));
  CHECK(byCategory["collective"] == collectives * static_cast<size_t>(nranks));
  CHECK(byCategory["step"] > 0);
  CHECK(byCategory["transfer"] > 0);
  CHECK(overlaps == 0);
}

}  // namespace

TEST_CASE("chrome trace: TRNCCL_TRACE writes every collective, step and transfer of every rank", "[trace][chrome]") {
  TempDir dir;
  const std::string pattern = dir.path() + "/trace-%r.json";
  ScopedEnv trace("TRNCCL_TRACE", pattern.c_str());
  ScopedEnv slices("TRNCCL_SLICE_BYTES", "4096");  // several transfers per step
  const trnccl::test::ThreadJob job = trnccl::test::runOnThreads(3, [](trncclComm_t comm, int) {
    std::vector<float> data(10000, 1.0f);
    int failures = 0;
    for (int i = 0; i < 2; ++i)
      failures += trncclAllReduce(data.data(), data.data(), data.size(), trncclFloat32, trncclSum, comm, nullptr);
    failures += trncclBroadcast(data.data(), data.data(), data.size(), trncclFloat32, 0, comm, nullptr);
    return failures;
  });
  REQUIRE(job.init == trncclSuccess);
  REQUIRE(job.results == std::vector<int>{0, 0, 0});
  REQUIRE(dir.files() == std::vector<std::string>{"trace-0.json", "trace-1.json", "trace-2.json"});
  for (int rank = 0; rank < 3; ++rank) {
    INFO("rank " << rank);
    const json file = readJson(dir.path() + "/trace-" + std::to_string(rank) + ".json");
    checkTraceFile(file, 1, 3);
    std::vector<std::string> names;
    for (const json& e : file["traceEvents"])
      if (e.value("cat", "") == "collective") names.push_back(e["name"]);
    CHECK(names == std::vector<std::string>{"allreduce #0", "allreduce #1", "broadcast #2"});
  }
  std::vector<std::string> inputs;
  for (int rank = 0; rank < 3; ++rank) inputs.push_back(dir.path() + "/trace-" + std::to_string(rank) + ".json");
  checkTraceFile(trnccl::trace::mergeTraces(inputs), 3, 3);
  const ToolRun run =
      runTraceTool("merge -o " + dir.path() + "/merged.json " + inputs[0] + " " + inputs[1] + " " + inputs[2]);
  INFO(run.output);
  CHECK(run.status == 0);
  checkTraceFile(readJson(dir.path() + "/merged.json"), 3, 3);
}

TEST_CASE("chrome trace: ranks that are threads of one process share one file without %r", "[trace][chrome]") {
  TempDir dir;
  const std::string path = dir.path() + "/all.json";
  ScopedEnv trace("TRNCCL_TRACE", path.c_str());
  // An all-reduce, then rank 0 sends to rank 1 (a send/recv group).
  const trnccl::test::ThreadJob job = trnccl::test::runOnThreads(2, [](trncclComm_t comm, int rank) {
    std::vector<float> data(5000, 1.0f);
    int failures = trncclAllReduce(data.data(), data.data(), data.size(), trncclFloat32, trncclSum, comm, nullptr);
    failures += rank == 0 ? trncclSend(data.data(), data.size(), trncclFloat32, 1, comm, nullptr)
                          : trncclRecv(data.data(), data.size(), trncclFloat32, 0, comm, nullptr);
    return failures;
  });
  REQUIRE(job.results == std::vector<int>{0, 0});
  const json file = readJson(path);
  checkTraceFile(file, 2, 2);
  size_t groups = 0;
  for (const json& e : file["traceEvents"]) groups += e.value("name", "") == "send/recv group" ? 1 : 0;
  CHECK(groups == 2);
}

TEST_CASE("trnccl-trace merge: an input that is not a trace is an error naming it", "[trace][chrome]") {
  TempDir dir;
  const std::string bad = dir.path() + "/bad.json";
  FILE* f = std::fopen(bad.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fputs("{\"something\": 1}", f);
  std::fclose(f);
  CHECK_THROWS_WITH(trnccl::trace::mergeTraces({bad}), Catch::Contains("bad.json"));
  CHECK_THROWS_WITH(trnccl::trace::mergeTraces({dir.path() + "/missing.json"}), Catch::Contains("missing.json"));
}
