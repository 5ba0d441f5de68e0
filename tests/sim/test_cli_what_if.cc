// trnccl-sim's what-if flags as a user runs them: --straggler, --fail-link
// and where the bytes went (--links), against hand-computed figures.
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>

#include "tests/sim/sim_command.h"

using namespace trnccl::test;

namespace {

// A ring of 4 chips, one NeuronCore each, 100 GB/s per direction: rank r
// sits on chip r, and a ring all-reduce sends only from chip r to chip r+1.
const char* const kRing4 =
    R"({"name": "ring4", "chips": 4, "coresPerChip": 1, "device": {"generation": "trainium"},
        "onChip": {"bytesPerSec": 1e12, "latencySec": 0.5e-6}, "torus": [4],
        "neuronLink": {"bytesPerSec": 100e9, "latencySec": 1e-6}})";
constexpr double kRing4BytesPerSec = 100e9;

struct LinkRow {
  double bytes, busyUs, utilisation;
};

// --links FILE's rows by link name; every row of the file is of one run row.
std::map<std::string, LinkRow> readLinks(const std::string& file) {
  std::istringstream lines(slurp(file));
  std::string line;
  std::getline(lines, line);
  CHECK(line == "machine,algo,chosen,engine,bytes,link,link_bytes,busy_us,utilisation");
  std::map<std::string, LinkRow> links;
  while (std::getline(lines, line)) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) f.push_back(field);
    REQUIRE(f.size() == 9);
    links[f[5].substr(1, f[5].size() - 2)] = {std::stod(f[6]), std::stod(f[7]), std::stod(f[8])};
  }
  return links;
}

}  // namespace

TEST_CASE("trnccl-sim --straggler delays a ring all-reduce by the straggler's delay", "[sim][cli]") {
  // All 16 ranks' chains of the ring are alike: whichever is late, the end is
  // late by as much. One rank per chip: ranks of one chip share its DMA
  // engines, and the one on time would go faster while the other is late.
  for (const char* engine : {"event", "analytical"}) {
    CAPTURE(engine);
    const std::string args =
        std::string("--topo trn1.32xlarge --ranks 16 --rank-order chip --algo ring --sizes 64M --engine ") + engine;
    const double base = predictedRows(args)[0]["time_us"];
    const auto late = predictedRows(args + " --straggler 5:+50us");
    CHECK(late[0]["time_us"].get<double>() == Approx(base + 50).margin(1e-3));
    // Repeated and comma-separated; the latest rank's delay is most of the time.
    const auto later = predictedRows(args + " --straggler 5:+50us,9:+3ms --straggler 12:+0.5ms");
    CHECK(later[0]["time_us"].get<double>() == Approx(base + 3000).margin(1e-3));
    CHECK(later[0]["bound"] == "straggler rank 9");
  }
}

TEST_CASE("trnccl-sim --links writes 2(n-1)/n of the data on every link of a 4-rank ring, none the other way",
          "[sim][cli]") {
  const std::string topology = tempPath("ring4.json"), links = tempPath("links.csv");
  std::ofstream(topology) << kRing4;
  for (const char* engine : {"event", "analytical"}) {
    CAPTURE(engine);
    const auto rows =
        predictedRows("--topo " + topology + " --algo ring --sizes 1M --engine " + engine + " --links " + links);
    const double seconds = rows[0]["time_us"].get<double>() * 1e-6;
    const auto byLink = readLinks(links);
    CHECK(byLink.size() == 2 * 4 + 4);  // both directions of 4 links, and each chip's own
    const double bytes = 2.0 * 3 / 4 * (1 << 20);
    for (int chip = 0; chip < 4; ++chip) {
      const std::string chipName = "node0 chip" + std::to_string(chip);
      const LinkRow& forward = byLink.at(chipName + "->chip" + std::to_string((chip + 1) % 4));
      CHECK(forward.bytes == bytes);
      CHECK(forward.busyUs == Approx(bytes / kRing4BytesPerSec * 1e6).margin(1e-4));
      CHECK(forward.utilisation == Approx(bytes / kRing4BytesPerSec / seconds).margin(1e-4));
      CHECK(byLink.at(chipName + "->chip" + std::to_string((chip + 3) % 4)).bytes == 0);
      CHECK(byLink.at(chipName + " cores").utilisation == 0);
    }
  }
  std::remove(topology.c_str());
  std::remove(links.c_str());
}

TEST_CASE("trnccl-sim --fail-link routes around the link: slower, and the detour carries its bytes", "[sim][cli]") {
  const std::string intactLinks = tempPath("intact.csv"), degradedLinks = tempPath("degraded.csv");
  const std::string args = "--topo trn1.32xlarge --algo torus2d --sizes 64M --links ";
  const double intact = predictedRows(args + intactLinks)[0]["time_us"];
  const auto degraded = predictedRows(args + degradedLinks + " --fail-link 0-1")[0];
  CHECK(degraded["time_us"].get<double>() > 1.05 * intact);
  // 1 -> 0 now goes 1 -> 2 -> 3 -> 0 (breadth-first, lowest chip first);
  // chip 2 forwards the detour's bytes beside its own through its DMA
  // engines, the busiest link.
  CHECK(degraded["bound"] == "link node0 chip2 dma");
  const auto was = readLinks(intactLinks), is = readLinks(degradedLinks);
  std::remove(intactLinks.c_str());
  std::remove(degradedLinks.c_str());
  CHECK(is.size() == was.size() - 2);
  CHECK(is.count("node0 chip0->chip1") == 0);
  CHECK(is.at("node0 chip1->chip2").bytes == was.at("node0 chip1->chip2").bytes + was.at("node0 chip1->chip0").bytes);
  CHECK(is.at("node0 chip0->chip3").bytes == was.at("node0 chip0->chip3").bytes + was.at("node0 chip0->chip1").bytes);
  CHECK(is.at("node0 chip5->chip6").bytes == was.at("node0 chip5->chip6").bytes);
}

TEST_CASE("trnccl-sim names --straggler, --fail-link and --links in their errors", "[sim][cli]") {
  struct Case {
    const char* args;
    const char* mentions;
    int status;
  };
  for (const Case& c :
       {Case{"--straggler 5:50us", "--straggler '5:50us': expected RANK:+TIME", 2},
        Case{"--straggler 5:+50min", "--straggler '5:+50min'", 2},
        Case{"--straggler 32:+1us", "--straggler '32:+1us': rank 32 out of range", 2},
        Case{"--fail-link 3", "--fail-link '3': expected CHIP-CHIP", 2},
        Case{"--fail-link 0-5", "--fail-link 0-5: trn1.32xlarge has no NeuronLink between chip 0 and chip 5", 2},
        Case{"--topo inf2.48xlarge --fail-link 0-1 --fail-link 6-7", "has no NeuronLink path", 2},
        Case{"--links /nonexistent/dir/links.csv", "--links: cannot write '/nonexistent/dir/links.csv'", 1},
        Case{"--workload grad=1G --fail-link 0-1", "apply to sweeps, not to --validate, --workload", 2},
        Case{"--check x.tsv --fail-link 0-1", "apply to sweeps, not to --validate, --workload, --check", 2}}) {
    const auto run = runCommand(kSim + " --sizes 1K " + c.args);
    CAPTURE(c.args, run.output);
    CHECK(run.status == c.status);
    CHECK_THAT(run.output, Catch::Contains(c.mentions));
  }
}

TEST_CASE("trnccl-sim folds 2,048 ranks onto one instance, and leaves out a row it cannot fold, saying why",
          "[sim][cli]") {
  // 1,024 trn1.2xlarge instances of 2 ranks: auto folds above 1,024 ranks.
  const auto rows = predictedRows("--topo trn1.2xlarge:1024 --algo ring,hierarchical --sizes 1M");
  REQUIRE(rows.size() == 2);
  for (const auto& row : rows) {
    CHECK(row.at("engine") == "folded");
    CHECK(row.at("time_us").get<double>() > 0);
  }
  // RDH's extra ranks on 96 ranks are the first ones: the row is left out,
  // the others are printed, and the status says something is missing.
  const auto run = runCommand(kSim + " --topo trn1.32xlarge:3 --engine folded --algo ring,rdh --sizes 1M");
  CAPTURE(run.output);
  CHECK(run.status == 1);
  CHECK_THAT(run.output, Catch::Contains("(folded)") &&
                             Catch::Contains("left out trn1.32xlarge:3 rdh 1048576 B: rdh on 96 ranks does not treat "
                                             "the instances alike"));
  const auto unfoldable = runCommand(kSim + " --topo trn1.32xlarge --engine folded --sizes 1M");
  CHECK(unfoldable.status == 2);
  CHECK_THAT(unfoldable.output, Catch::Contains("--engine folded: trn1.32xlarge, 32 ranks cannot be folded"));
}
