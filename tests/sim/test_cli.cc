// trnccl-sim as a user runs it: its outputs, its plots and its errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "algorithms/registry.h"
#include "tests/sim/sim_command.h"

using namespace trnccl;
using namespace trnccl::test;

TEST_CASE("trnccl-sim prints a row per algorithm and size, with the tuner's pick for auto", "[sim][cli]") {
  const auto run = runCommand(kSim +
                              " --topo trn1.32xlarge --ranks 16 --rank-order chip --algo ring,torus2d,auto"
                              " --sizes 64K:64M:x32");
  REQUIRE(run.status == 0);
  CHECK_THAT(run.output, Catch::Contains("# trnccl-sim: all_reduce, float sum"));
  CHECK_THAT(run.output, Catch::Contains("busbw"));
  CHECK(dataLines(run.output).size() == 3 * 3);  // 64 KiB, 2 MiB, 64 MiB
  CHECK_THAT(run.output, Catch::Contains("torus2d      ") && Catch::Contains("(event)"));
}

TEST_CASE("trnccl-sim --list-algorithms prints every registered algorithm with where it runs", "[sim][cli]") {
  const auto run = runCommand(kSim + " --list-algorithms");
  REQUIRE(run.status == 0);
  const std::vector<std::string> lines = dataLines(run.output);
  REQUIRE(lines.size() == algo::registeredAlgorithms().size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const algo::RegisteredAlgorithm& a = algo::registeredAlgorithms()[i];
    CHECK(lines[i] == a.name + " " + algo::reachName(a.reach));
  }
  CHECK(lines.front() == "ring any-ranks");  // the tuner's first preference
  CHECK(std::find(lines.begin(), lines.end(), "hierarchical instances") != lines.end());
}

TEST_CASE("trnccl-sim writes CSV and JSON with nccl-tests' bandwidths", "[sim][cli]") {
  const std::string json = tempPath("out.json");
  REQUIRE(runCommand(kSim + " --topo trn1.2xlarge --coll allgather --algo ring --sizes 1M --format json --out " + json)
              .status == 0);
  const auto doc = nlohmann::json::parse(slurp(json));
  std::remove(json.c_str());
  REQUIRE(doc["rows"].size() == 1);
  const auto& row = doc["rows"][0];
  CHECK(row["chosen"] == "ring");
  CHECK(row["ranks"] == 2);
  // nccl-tests: all-gather algbw = bytes / time, busbw = algbw x (n-1)/n.
  const double algbw = row["bytes"].get<double>() / (row["time_us"].get<double>() * 1e-6) / 1e9;
  CHECK(row["algbw_gbps"].get<double>() == Approx(algbw).epsilon(1e-6));
  CHECK(row["busbw_gbps"].get<double>() == Approx(algbw / 2).epsilon(1e-6));
  const auto csv = runCommand(kSim + " --topo trn1.2xlarge --algo ring --sizes 1K:4K:x2 --format csv");
  REQUIRE(csv.status == 0);
  CHECK_THAT(csv.output, Catch::StartsWith("machine,runtime,ranks,algo,chosen,engine,bytes,count,time_us,time_low_us,"
                                           "time_high_us,algbw_gbps,"));
  CHECK(std::count(csv.output.begin(), csv.output.end(), '\n') == 1 + 3);
}

TEST_CASE("trnccl-sim names the runtime era in every output, and its bands widen off the fitted machines",
          "[sim][cli]") {
  const std::string machines = "--topo trn1.32xlarge,trn1.32xlarge:4,inf2.48xlarge --algo auto --sizes 1M";
  const auto table = runCommand(kSim + " " + machines + " --runtime 2023");
  REQUIRE(table.status == 0);
  CHECK_THAT(table.output, Catch::Contains("trn1.32xlarge: hardware trainium"));
  CHECK_THAT(table.output, Catch::Contains("Neuron runtime 2023"));
  const auto newest = runCommand(kSim + " " + machines);
  REQUIRE(newest.status == 0);
  CHECK_THAT(newest.output, Catch::Contains("Neuron runtime 2026"));  // the default: the newest era

  const nlohmann::json rows = predictedRows(machines + " --runtime 2023");
  REQUIRE(rows.size() == 3);
  std::vector<double> widths;  // high / low: (1 + f)^2
  for (const auto& row : rows) {
    CAPTURE(row.dump());
    CHECK(row["runtime"] == "2023");
    const double t = row["time_us"], low = row["time_low_us"], high = row["time_high_us"];
    CHECK(low < t);
    CHECK(high > t);
    CHECK(high / t == Approx(t / low).epsilon(1e-9));
    widths.push_back(high / low);
  }
  // The 2023 runtime was fitted on one trn1.32xlarge: four of them, and inf2's
  // unfitted hardware, get wider bands.
  CHECK(widths[1] > widths[0]);
  CHECK(widths[2] > widths[0]);
  CHECK_THAT(rows[0]["band_basis"].get<std::string>(), Catch::StartsWith("fitted"));
  CHECK_THAT(rows[1]["band_basis"].get<std::string>(), Catch::StartsWith("off the fit"));
  const auto bad = runCommand(kSim + " --runtime 1999 --sizes 1K");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.output, Catch::Contains("--runtime '1999'"));
}

TEST_CASE("trnccl-sim simulates gather, scatter, the v-collectives and permute with the algorithm that runs them",
          "[sim][cli]") {
  // The v-collectives run even blocks, so each predicts as its even form
  // moves the same bytes over the same messages: all-to-all-v as all-to-all
  // (mesh both), all-gather-v as all-gather with the ring forced.
  const std::vector<std::pair<std::string, std::string>> chosen = {{"gather", "direct"},   {"scatter", "direct"},
                                                                   {"permute", "direct"},  {"alltoallv", "mesh"},
                                                                   {"allgatherv", "ring"}, {"reducescatterv", "ring"}};
  for (const auto& [coll, algorithm] : chosen) {
    CAPTURE(coll);
    const auto run = runCommand(kSim + " --topo trn1.32xlarge --ranks 8 --coll " + coll + " --sizes 1M --format json");
    REQUIRE(run.status == 0);
    const auto doc = nlohmann::json::parse(run.output);
    REQUIRE(doc["rows"].size() == 1);
    CHECK(doc["rows"][0]["chosen"] == algorithm);
    CHECK(doc["rows"][0]["time_us"].get<double>() > 0);
  }
  auto timeOf = [](const std::string& args) {
    const auto run = runCommand(kSim + " --topo trn1.32xlarge --ranks 8 --sizes 1M --format json " + args);
    REQUIRE(run.status == 0);
    return nlohmann::json::parse(run.output)["rows"][0]["time_us"].get<double>();
  };
  CHECK(timeOf("--coll alltoallv") == Approx(timeOf("--coll alltoall --algo mesh")));
  CHECK(timeOf("--coll allgatherv") == Approx(timeOf("--coll allgather --algo ring")));
  CHECK(timeOf("--coll reducescatterv") == Approx(timeOf("--coll reducescatter --algo ring")));
}

TEST_CASE("trnccl-sim --compare puts knob variants side by side", "[sim][cli]") {
  const auto run = runCommand(kSim +
                              " --topo trn1.32xlarge --ranks 16 --rank-order chip --algo ring --sizes 64M"
                              " --compare link.bandwidth=2x --format csv");
  REQUIRE(run.status == 0);
  std::istringstream lines(run.output);
  std::string header, base, faster;
  std::getline(lines, header), std::getline(lines, base), std::getline(lines, faster);
  CHECK_THAT(base, Catch::StartsWith("\"trn1.32xlarge\","));
  CHECK_THAT(faster, Catch::StartsWith("\"trn1.32xlarge link.bandwidth=2x\","));
}

TEST_CASE("trnccl-sim --plot draws a PNG or an SVG with gnuplot", "[sim][cli]") {
  for (const char* extension : {".png", ".svg"}) {
    const std::string file = tempPath(std::string("plot") + extension);
    const auto run = runCommand(kSim + " --topo trn1.32xlarge --ranks 16 --algo ring,torus2d --sizes 4K:4M:x4 --plot " +
                                file + " --out /dev/null");
    CAPTURE(extension, run.output);
    REQUIRE(run.status == 0);
    const std::string image = slurp(file);
    std::remove(file.c_str());
    if (std::string(extension) == ".png")
      CHECK(image.rfind("\x89PNG\r\n", 0) == 0);
    else
      CHECK_THAT(image, Catch::Contains("<svg") && Catch::Contains("torus2d"));
  }
}

TEST_CASE("trnccl-sim refuses bad arguments with a message naming them and status 2", "[sim][cli]") {
  struct Case {
    const char* args;
    const char* mentions;
  };
  for (const Case& c :
       {Case{"--set link.speed=2", "unknown knob 'link.speed'"},
        Case{"--topo trn9.huge", "unknown topology 'trn9.huge'"}, Case{"--sizes 8:4G", "--sizes '8:4G'"},
        Case{"--format xml", "--format 'xml'"}, Case{"--coll sendrecv", "collectives only"},
        Case{"--algo torus9", "torus9"}, Case{"--plot out.pdf", "--plot 'out.pdf'"},
        Case{"--bogus 1", "unknown argument '--bogus'"}, Case{"--ranks", "--ranks needs a value"},
        Case{"--ranks=x", "invalid value 'x' for --ranks"},
        Case{"--instances 1,-2", "invalid value '-2' for --instances"}, Case{"--help=1", "--help takes no value"}}) {
    const auto run = runCommand(kSim + " " + c.args);
    CAPTURE(c.args, run.output);
    CHECK(run.status == 2);
    CHECK_THAT(run.output, Catch::Contains(c.mentions));
  }
}
