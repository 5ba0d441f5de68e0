// trnccl-ls run as a user runs it.
#include <catch2/catch.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/command_run.h"

namespace {

using trnccl::test::Run;

Run runLs(const std::string& args) {
  return trnccl::test::runCommand("env -u TRNCCL_TOPO '" TRNCCL_LS_PATH "' " + args);
}

}  // namespace

TEST_CASE("trnccl-ls lists trn1.32xlarge's chips, ranks, torus and NICs", "[trnccl-ls]") {
  const Run run = runLs("--topo trn1.32xlarge");
  INFO(run.output);
  CHECK(run.status == 0);
  CHECK_THAT(run.output, Catch::Contains("trn1.32xlarge") && Catch::Contains("16 chips") &&
                             Catch::Contains("32 NeuronCores") && Catch::Contains("2D torus 4x4"));
  // The torus drawn row by row with its chip numbers.
  CHECK_THAT(run.output, Catch::Contains(" 0 --  1 --  2 --  3") && Catch::Contains("12 -- 13 -- 14 -- 15"));
  CHECK_THAT(run.output, Catch::Contains("EFA: 8 NICs per instance, 800 Gbps"));
  CHECK_THAT(run.output, Catch::Contains("host: "));
}

TEST_CASE("trnccl-ls --json-output lists one instance's devices under neuron-ls's field names", "[trnccl-ls]") {
  const Run run = runLs("--topo trn1.32xlarge:2 --json-output");
  INFO(run.output);
  REQUIRE(run.status == 0);
  const auto devices = nlohmann::json::parse(run.output);
  REQUIRE(devices.is_array());
  REQUIRE(devices.size() == 16);  // one instance of the two
  for (int d = 0; d < 16; ++d) {
    const auto& device = devices[d];
    CHECK(device["neuron_device"] == d);
    CHECK(device["nc_count"] == 2);
    CHECK(device["memory_size"] == 32ULL << 30);  // trn1: 32 GiB of HBM per chip, in bytes
    CHECK(device["neuroncore_ids"] == nlohmann::json{2 * d, 2 * d + 1});
    CHECK(device["numa_node"].is_string());
    CHECK(device["neuron_processes"] == nlohmann::json::array());
    // The 4 x 4 torus: left, right, up and down, wrapping around.
    const int x = d % 4, y = d / 4;
    std::set<int> expected = {y * 4 + (x + 1) % 4, y * 4 + (x + 3) % 4, ((y + 1) % 4) * 4 + x, ((y + 3) % 4) * 4 + x};
    CHECK(device["connected_to"].get<std::set<int>>() == expected);
  }
  std::set<std::string> bdfs;
  for (const auto& device : devices) bdfs.insert(device["bdf"].get<std::string>());
  CHECK(bdfs.size() == 16);
}

TEST_CASE("trnccl-ls --json-output: a lone device is connected to nothing (null), as neuron-ls says", "[trnccl-ls]") {
  const Run run = runLs("-j --topo trn1.2xlarge");
  INFO(run.output);
  REQUIRE(run.status == 0);
  const auto devices = nlohmann::json::parse(run.output);
  REQUIRE(devices.size() == 1);
  CHECK(devices[0]["connected_to"].is_null());
  CHECK(devices[0]["neuroncore_ids"] == nlohmann::json{0, 1});
  CHECK(runLs("--json --json-output").status == 2);
}

TEST_CASE("trnccl-ls --json has the same content as JSON", "[trnccl-ls]") {
  const Run run = runLs("--topo trn1.32xlarge --json");
  INFO(run.output);
  REQUIRE(run.status == 0);
  const auto doc = nlohmann::json::parse(run.output);
  CHECK(doc["topology"]["name"] == "trn1.32xlarge");
  CHECK(doc["topology"]["neuronLink"]["torus"] == nlohmann::json{4, 4});
  REQUIRE(doc["chips"].size() == 16);
  CHECK(doc["ranks"].size() == 32);
  // Chip 5 is 7th in the 4x4 snake (0 1 2 3 7 6 5 ...): ranks 12 and 13.
  CHECK(doc["chips"][5]["neuronCores"][0]["rank"] == 12);
  CHECK(doc["chips"][5]["neuronCores"][1]["rank"] == 13);
  CHECK(doc["chips"][5]["connectedChips"] == nlohmann::json{1, 4, 6, 9});
  CHECK(doc["topology"]["efa"]["nics"].size() == 8);
  CHECK(doc.contains("host"));
}

TEST_CASE("trnccl-ls draws rings and 3D tori, and places fewer ranks on request", "[trnccl-ls]") {
  Run run = runLs("--topo inf2.48xlarge");
  CHECK(run.status == 0);
  CHECK_THAT(run.output, Catch::Contains("ring of 12") && Catch::Contains("10 -- 11") && Catch::Contains("EFA: none"));
  run = runLs("--topo trn2-ultraserver --ranks 4 --order chip --json");
  REQUIRE(run.status == 0);
  const auto doc = nlohmann::json::parse(run.output);
  CHECK(doc["chips"].size() == 64);
  CHECK(doc["ranks"] == nlohmann::json::parse(R"([{"node":0,"chip":0,"core":0},{"node":0,"chip":1,"core":0},
                                                  {"node":0,"chip":2,"core":0},{"node":0,"chip":3,"core":0}])"));
  run = runLs("--topo trn2-ultraserver");
  CHECK_THAT(run.output, Catch::Contains("plane 3 (chips 48-63)"));
}

TEST_CASE("trnccl-ls refuses bad arguments with a message and status 2", "[trnccl-ls]") {
  for (const char* args :
       {"--bogus", "--ranks", "--ranks 0", "--topo nosuch", "--topo trn1.2xlarge -n 8", "--order 1,1", "--json=1"}) {
    INFO(args);
    const Run run = runLs(args);
    CHECK(run.status == 2);
    CHECK_THAT(run.output, Catch::StartsWith("trnccl-ls: "));
  }
  CHECK_THAT(runLs("--topo trn1.2xlarge -n 8").output, Catch::Contains("trn1.2xlarge:4"));
  const Run help = runLs("--help");
  CHECK(help.status == 0);
  CHECK_THAT(help.output, Catch::Contains("--topo SPEC") && Catch::Contains("trn2-ultraserver"));
}
