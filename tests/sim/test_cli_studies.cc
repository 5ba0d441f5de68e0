// trnccl-sim's studies beyond one sweep: --validate against a trnccl-perf
// report, and --workload's data-parallel step over instances.
#include <catch2/catch.hpp>
#include <cstdio>
#include <regex>

#include "tests/sim/sim_command.h"

using namespace trnccl::test;

namespace {

// What trnccl-perf -J writes, reduced to what --validate reads: the run's
// TRNCCL_* environment, and per row the algorithm and its time, here in
// host microseconds of an emulation 100 times slower than the machine.
nlohmann::json perfReport(nlohmann::json rows) {
  return {{"tool", "trnccl-perf"},
          {"collective", "all_reduce"},
          {"nranks", 16},
          {"env",
           {{"TRNCCL_EMULATE_LINKS", "1"},
            {"TRNCCL_TOPO", "trn1.32xlarge"},
            {"TRNCCL_RANK_ORDER", "chip"},
            {"TRNCCL_EMULATE_SCALE", "100"}}},
          {"rows", std::move(rows)}};
}

nlohmann::json perfRow(size_t bytes, const std::string& algorithm, double modelledUs) {
  return {{"size_bytes", bytes}, {"count", bytes / 4},     {"type", "float"},
          {"redop", "sum"},      {"algorithm", algorithm}, {"out_of_place", {{"time_us", modelledUs * 100}}}};
}

// What the sweep predicts for one algorithm and size on the report's machine.
double predictedUs(const std::string& algorithm, size_t bytes) {
  return predictedRows("--topo trn1.32xlarge --ranks 16 --rank-order chip --algo " + algorithm + " --sizes " +
                       std::to_string(bytes))[0]["time_us"];
}

std::string twoDecimals(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

}  // namespace

TEST_CASE("trnccl-sim --validate prints measured, predicted and their error per row, and the median", "[sim][cli]") {
  // Measured 25% and 1/0.9 above the predictions: -20% and -10%; the 4 KiB
  // row (-50%) is below 64 KiB and out of the median, (20% + 10%) / 2.
  const double ring = predictedUs("ring", 1 << 20), torus = predictedUs("torus2d", 1 << 20);
  const double small = predictedUs("ring", 4096);
  const std::string file = tempPath("perf.json");
  std::ofstream(file) << perfReport({perfRow(1 << 20, "ring", 1.25 * ring), perfRow(1 << 20, "torus2d", torus / 0.9),
                                     perfRow(4096, "ring", 2 * small)});
  const auto run = runCommand(kSim + " --validate " + file);
  CAPTURE(run.output);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.output, Catch::Contains("trn1.32xlarge, 16 ranks, emulation scale 100"));
  CHECK_THAT(run.output, Catch::Contains("measured") && Catch::Contains("predicted") && Catch::Contains("error"));
  const std::vector<std::string> rows = dataLines(run.output);
  REQUIRE(rows.size() == 3);
  const std::regex row(R"(\s*(\d+) (\w+)\s+([\d.]+)\s+([\d.]+)\s+([-+][\d.]+)%)");
  const struct {
    size_t bytes;
    const char* algorithm;
    double measured, predicted;
    const char* error;
  } expected[] = {{1 << 20, "ring", 1.25 * ring, ring, "-20.0"},
                  {1 << 20, "torus2d", torus / 0.9, torus, "-10.0"},
                  {4096, "ring", 2 * small, small, "-50.0"}};
  for (size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(rows[i]);
    std::smatch m;
    REQUIRE(std::regex_match(rows[i], m, row));
    CHECK(std::stoul(m[1]) == expected[i].bytes);
    CHECK(m[2] == expected[i].algorithm);
    CHECK(m[3] == twoDecimals(expected[i].measured));
    CHECK(m[4] == twoDecimals(expected[i].predicted));
    CHECK(m[5] == expected[i].error);
  }
  CHECK_THAT(run.output, Catch::Contains("median absolute error over sizes >= 64 KiB: 15.0% (2 rows)"));
  // A run without the emulation measured this host, not the machine.
  auto unemulated = perfReport({perfRow(1 << 20, "ring", ring)});
  unemulated["env"]["TRNCCL_EMULATE_LINKS"] = "0";
  std::ofstream(file) << unemulated;
  const auto refused = runCommand(kSim + " --validate " + file);
  CHECK(refused.status == 2);
  CHECK_THAT(refused.output, Catch::Contains("--validate '" + file + "'") && Catch::Contains("TRNCCL_EMULATE_LINKS=1"));
  std::remove(file.c_str());
}

TEST_CASE("trnccl-sim --workload: a step is at least its compute, and efficiency falls from 100% over instances",
          "[sim][cli]") {
  // 1 ms of compute against 64 MiB of gradients: communication dominates,
  // and beyond one instance it crosses EFA.
  const auto run = runCommand(kSim +
                              " --workload compute_ms=1,grad=64M,bucket=16M --topo trn1.32xlarge"
                              " --instances 1,2,4");
  CAPTURE(run.output);
  REQUIRE(run.status == 0);
  const std::vector<std::string> rows = dataLines(run.output);
  REQUIRE(rows.size() == 3);
  double lastEfficiency = 101;
  for (size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(rows[i]);
    std::istringstream fields(rows[i]);
    int instances = 0, ranks = 0;
    std::string algorithm;
    double bucketUs = 0, commMs = 0, exposedMs = 0, stepMs = 0, efficiency = 0;
    fields >> instances >> ranks >> algorithm >> bucketUs >> commMs >> exposedMs >> stepMs >> efficiency;
    REQUIRE(fields);
    CHECK(instances == (1 << i));
    CHECK(ranks == 32 * instances);
    CHECK(commMs == Approx(4 * bucketUs / 1e3).margin(0.01));  // 64M in 4 buckets
    CHECK(stepMs >= 1.0);
    CHECK(stepMs == Approx(1.0 + exposedMs).margin(0.01));
    if (i == 0)
      CHECK(efficiency == 100.0);
    else
      CHECK(efficiency < lastEfficiency);
    lastEfficiency = efficiency;
  }
  const auto bad = runCommand(kSim + " --workload grad=1G,speed=2");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.output, Catch::Contains("--workload: 'speed=2'"));
}
