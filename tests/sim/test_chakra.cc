// trnccl-sim --chakra: Chakra execution traces written here (a data-parallel
// step, a tensor-parallel layer), read back and replayed on a machine.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "chakra_trace.h"
#include "tests/sim/sim_command.h"

using namespace trnccl;
using namespace trnccl::test;
namespace chakra = trnccl::simtool::chakra;

namespace {

// Column `column` of the first data line of trnccl-sim's output.
double column(const std::string& output, int column) {
  for (const std::string& line : dataLines(output)) {
    std::istringstream words(line);
    std::string word;
    for (int c = 0; c <= column && words >> word; ++c) {
    }
    return std::stod(word);
  }
  FAIL("no data line in: " << output);
  return 0;
}

std::string written(const chakra::Trace& trace, const std::string& name) {
  const std::string path = tempPath(name);
  chakra::writeTrace(path, trace);
  return path;
}

}  // namespace

TEST_CASE("chakra: a trace written is read back node for node", "[sim][chakra]") {
  const std::string path = written(chakra::dataParallelStep(100000, 41, 25 << 20), "dp.et");
  const chakra::Trace read = chakra::readTrace(path);
  std::remove(path.c_str());
  CHECK(read.metadata.version() == "0.0.4");
  REQUIRE(read.nodes.size() == 1 + 2 * 41);
  CHECK(read.nodes[0].type() == ChakraProtoMsg::COMP_NODE);
  CHECK(read.nodes[0].duration_micros() == 33333);
  CHECK(read.nodes[2].type() == ChakraProtoMsg::COMM_COLL_NODE);
  CHECK(read.nodes[2].data_deps(0) == read.nodes[1].id());
}

TEST_CASE("chakra: a data-parallel step replays as --workload predicts it (within 1%)", "[sim][chakra]") {
  // 1 GiB of bf16 gradients in 25 MiB buckets: 41 all-reduces.
  const std::string path = written(chakra::dataParallelStep(100000, 41, 25 << 20), "dp-step.et");
  for (const char* topology : {"trn1.32xlarge", "trn1.32xlarge:64"}) {
    INFO(topology);
    const auto replayed = runCommand(kSim + " --chakra " + path + " --topo " + topology + " --dtype bf16");
    INFO(replayed.output);
    REQUIRE(replayed.status == 0);
    const std::string instances = std::string(topology).find(':') == std::string::npos ? "1" : "64";
    const auto formula = runCommand(kSim + " --workload compute_ms=100,grad=1G,bucket=25M,overlap=1,dtype=bf16" +
                                    " --topo trn1.32xlarge --instances " + instances);
    INFO(formula.output);
    REQUIRE(formula.status == 0);
    const double traceStep = column(replayed.output, 0), formulaStep = column(formula.output, 6);
    CHECK(traceStep == Approx(formulaStep).epsilon(0.01));
    CHECK(traceStep > 100.0);  // the compute alone takes 100 ms
  }
  std::remove(path.c_str());
}

TEST_CASE("chakra: a tensor-parallel layer is its compute plus its two all-reduces", "[sim][chakra]") {
  const std::string path = written(chakra::tensorParallelLayer(400, 800, 8 << 20), "tp-layer.et");
  const auto replayed = runCommand(kSim + " --chakra " + path + " --topo trn1.32xlarge --ranks 8 --dtype bf16");
  std::remove(path.c_str());
  INFO(replayed.output);
  REQUIRE(replayed.status == 0);
  const auto allReduce = predictedRows("--topo trn1.32xlarge --ranks 8 --dtype bf16 --coll allreduce --sizes 8M").at(0);
  const double allReduceMs = allReduce["time_us"].get<double>() / 1e3;
  CHECK(column(replayed.output, 0) == Approx(1.2 + 2 * allReduceMs).epsilon(1e-3));  // step
  CHECK(column(replayed.output, 3) == Approx(2 * allReduceMs).epsilon(1e-3));        // exposed: nothing overlaps
  CHECK_THAT(replayed.output, Catch::Contains("allreduce") && Catch::Contains("8388608"));
}

TEST_CASE("chakra: a file that is no trace, a dependency on no node and a cycle are refused naming them",
          "[sim][chakra]") {
  const std::string junk = tempPath("junk.et");
  std::ofstream(junk) << "\xff\xff\xff\xff not protobuf";
  const auto bad = runCommand(kSim + " --chakra " + junk);
  CHECK(bad.status != 0);
  CHECK_THAT(bad.output, Catch::Contains("junk.et"));
  std::remove(junk.c_str());

  chakra::Trace dangling = chakra::tensorParallelLayer(1, 1, 1024);
  dangling.nodes[0].add_data_deps(99);
  const std::string path = written(dangling, "dangling.et");
  const auto missing = runCommand(kSim + " --chakra " + path + " --ranks 2");
  CHECK(missing.status != 0);
  CHECK_THAT(missing.output, Catch::Contains("node 1") && Catch::Contains("node 99"));

  chakra::Trace cycle = chakra::tensorParallelLayer(1, 1, 1024);
  cycle.nodes[0].add_data_deps(4);
  chakra::writeTrace(path, cycle);
  const auto looped = runCommand(kSim + " --chakra " + path + " --ranks 2");
  std::remove(path.c_str());
  CHECK(looped.status != 0);
  CHECK_THAT(looped.output, Catch::Contains("cycle"));
}
