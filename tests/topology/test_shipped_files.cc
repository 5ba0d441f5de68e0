// The shipped topology files against DESIGN.md's hardware table, and how
// loadTopology finds and reads files.
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "base/error.h"
#include "topology/topology.h"

using trnccl::topo::loadTopology;
using trnccl::topo::Topology;

namespace {

constexpr double GiB = 1024.0 * 1024 * 1024;

// DESIGN.md's table: chips, ranks, NeuronLink GB/s per chip within an
// instance, EFA Gbps per instance and NICs, HBM GiB per chip.
struct Expected {
  const char* name;
  int chips, ranks;
  double linkGBpsPerChip;
  double efaGbps;
  int nics;
  const char* generation;
  double hbmGiB;
};
const Expected kTable[] = {
    {"trn1.2xlarge", 1, 2, 0, 25, 1, "trainium", 32},
    {"trn1.32xlarge", 16, 32, 384, 800, 8, "trainium", 32},
    {"trn1n.32xlarge", 16, 32, 768, 1600, 16, "trainium", 32},
    {"inf2.48xlarge", 12, 24, 192, 0, 0, "trainium", 32},
    {"trn2.48xlarge", 16, 64, 1024, 3200, 16, "trainium2", 96},
    // 4 instances of 16 chips; EFA 3200 Gbps per instance.
    {"trn2-ultraserver", 64, 256, 1024, 4 * 3200, 64, "trainium2", 96},
};

// Which instance of an UltraServer a chip is in (its z coordinate).
int ultraserverInstance(int chip) { return chip / 16; }

// A directory of its own under /tmp, removed at the end of the test.
struct TempDir {
  std::string path;
  TempDir() {
    char name[] = "/tmp/trnccl-topo-XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path = name;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& file, const std::string& text) const {
    std::ofstream(path + "/" + file) << text;
    return path + "/" + file;
  }
};

// TRNCCL_TOPO_DIR set for the life of the object.
struct ScopedTopoDir {
  explicit ScopedTopoDir(const std::string& dir) { setenv("TRNCCL_TOPO_DIR", dir.c_str(), 1); }
  ~ScopedTopoDir() { unsetenv("TRNCCL_TOPO_DIR"); }
};

const char* kCustomFile = R"({
  // a 3-chip line, explicitly listed
  "name": "line3", "chips": 3, "coresPerChip": 1,
  "device": {"generation": "trainium"},
  "onChip": {"bytesPerSec": 1e12, "latencySec": 0},
  "neuronLink": {"bytesPerSec": 50e9, "latencySec": 1e-6},
  "links": [{"a": 0, "b": 1}, {"a": 1, "b": 2, "bytesPerSec": 25e9}],
  "efa": {"gbpsPerNic": 400, "nicChips": [1], "latencySec": 10e-6}
})";

}  // namespace

TEST_CASE("every shipped topology loads with DESIGN.md's figures", "[topology][files]") {
  const std::vector<std::string> shipped = trnccl::topo::shippedTopologyNames();
  for (const Expected& e : kTable) {
    INFO(e.name);
    CHECK(std::find(shipped.begin(), shipped.end(), e.name) != shipped.end());
    const Topology t = loadTopology(e.name);
    CHECK(t.name == e.name);
    CHECK(t.file.ends_with(std::string("/") + e.name + ".json"));
    CHECK(t.nodes == 1);
    CHECK(t.chips == e.chips);
    CHECK(t.totalCores() == e.ranks);
    CHECK(std::string(t.device.generation) == e.generation);
    CHECK(t.device.hbmBytes == e.hbmGiB * GiB);
    CHECK(t.onChipBytesPerSec == t.device.dmaBytesPerSec);
    CHECK(t.efaLatencySec == Approx(15e-6));

    // NeuronLink bandwidth summed over each chip's links, within its instance
    // (and for the UltraServer, between instances: +256 GB/s per chip). A
    // link's figure holds for each direction; AWS's per-chip figures count
    // both.
    std::vector<double> intra(static_cast<size_t>(t.chips)), inter(static_cast<size_t>(t.chips));
    for (const auto& l : t.links) {
      REQUIRE(l.latencySec == Approx(1.5e-6));
      const bool between = ultraserverInstance(l.a) != ultraserverInstance(l.b);
      for (int chip : {l.a, l.b}) (between ? inter : intra)[chip] += 2 * l.bytesPerSec;
    }
    for (int chip = 0; chip < t.chips; ++chip) {
      CHECK(intra[chip] == Approx(e.linkGBpsPerChip * 1e9));
      CHECK(inter[chip] == Approx(t.name == "trn2-ultraserver" ? 256e9 : 0));
    }

    double efaBytesPerSec = 0;
    for (const auto& n : t.nics) efaBytesPerSec += n.bytesPerSec;
    CHECK(static_cast<int>(t.nics.size()) == e.nics);
    CHECK(efaBytesPerSec == Approx(e.efaGbps * 1e9 / 8));

    // Every collective-engine figure is there with its source. The DMA
    // engines' and the reductions' rates are the chip generation's, fitted to the published
    // measurements of trn1 and trn2 (inf2's assumed from trn1's); launch and
    // per message are the newest runtime era's (topologies/runtimes/).
    for (size_t i = 0; i < trnccl::topo::kEngineFigures.size(); ++i) {
      INFO(trnccl::topo::kEngineFigures[i].key);
      CHECK(t.engine.*trnccl::topo::kEngineFigures[i].member > 0);
      const std::string key = trnccl::topo::kEngineFigures[i].key;
      if (key != "dmaBytesPerSec" && key != "reduceBytesPerSec")
        CHECK_THAT(t.engine.sources[i], Catch::StartsWith("runtime 2026: "));
      else if (e.name != std::string("inf2.48xlarge"))
        CHECK_THAT(t.engine.sources[i], Catch::StartsWith("fitted to "));
      else
        CHECK_THAT(t.engine.sources[i], Catch::StartsWith("assumed"));
    }
    CHECK(t.engine.runtime == "2026");
  }
}

TEST_CASE("the Trn3 UltraServer loads with the published figures, its engine marked assumed", "[topology][files]") {
  const Topology t = loadTopology("trn3-ultraserver");
  CHECK(t.chips == 144);
  CHECK(t.totalCores() == 576);
  CHECK(std::string(t.device.generation) == "trainium3");
  CHECK(t.device.hbmBytes == 144 * GiB);
  CHECK(t.links.empty());
  REQUIRE(t.neuronSwitch.present());
  CHECK(t.chips / t.neuronSwitch.chipsPerServer == 36);
  // 2,048 GiB/s per device, both directions counted.
  CHECK(2 * t.neuronSwitch.bytesPerSec == Approx(2048 * GiB).epsilon(1e-4));
  double efaBytesPerSec = 0;
  for (const auto& n : t.nics) efaBytesPerSec += n.bytesPerSec;
  CHECK(efaBytesPerSec == Approx(28800e9 / 8));
  // No Trn3 measurement was fitted: its hardware figures say so.
  for (const char* key : {"dmaBytesPerSec", "reduceBytesPerSec"})
    for (size_t i = 0; i < trnccl::topo::kEngineFigures.size(); ++i)
      if (trnccl::topo::kEngineFigures[i].key == std::string(key))
        CHECK_THAT(t.engine.sources[i], Catch::StartsWith("assumed"));
}

TEST_CASE("the torus files list each neighbour pair of the torus once", "[topology][files]") {
  // Neighbours on a 4x4 torus with wrap-around, computed here: chips whose
  // coordinates differ by 1 (mod 4) in exactly one dimension.
  std::map<std::pair<int, int>, int> expected;
  for (int a = 0; a < 16; ++a) {
    for (int b = a + 1; b < 16; ++b) {
      const int dx = std::abs(a % 4 - b % 4), dy = std::abs(a / 4 - b / 4);
      const bool xNeighbours = (dx == 1 || dx == 3) && dy == 0;
      const bool yNeighbours = (dy == 1 || dy == 3) && dx == 0;
      if (xNeighbours || yNeighbours) expected[{a, b}] = 1;
    }
  }
  for (const char* name : {"trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge"}) {
    const Topology t = loadTopology(name);
    CHECK(t.torus == std::vector<int>{4, 4});
    std::map<std::pair<int, int>, int> listed;
    for (const auto& l : t.links) ++listed[std::minmax(l.a, l.b)];
    CHECK(listed == expected);
  }
  CHECK(loadTopology("inf2.48xlarge").links.size() == 12);
  CHECK(loadTopology("trn2-ultraserver").links.size() == 3 * 64);
  CHECK(loadTopology("trn1.2xlarge").links.empty());
}

TEST_CASE("a ':N' suffix sets how many instances EFA joins", "[topology][files]") {
  const Topology four = loadTopology("trn1.32xlarge:4");
  CHECK(four.nodes == 4);
  CHECK(four.totalCores() == 4 * 32);
  CHECK(four.coresPerNode() == 32);
  CHECK(loadTopology("trn2-ultraserver:2").totalCores() == 512);
  CHECK(loadTopology("trn1.2xlarge:1").nodes == 1);

  CHECK_THROWS_WITH(loadTopology("trn1.32xlarge:x"),
                    Catch::Contains("trn1.32xlarge:x") && Catch::Contains("':x' is not an instance count"));
  CHECK_THROWS_WITH(loadTopology("trn1.32xlarge:0"), Catch::Contains("':0' is not an instance count"));
  CHECK_THROWS_WITH(loadTopology("trn1.32xlarge:"), Catch::Contains("':' is not an instance count"));
  CHECK_THROWS_WITH(loadTopology("trn1.32xlarge:99999999"), Catch::Contains("from 1 to 65536"));
  CHECK_THROWS_WITH(loadTopology("inf2.48xlarge:2"), Catch::Contains("inf2.48xlarge.json has no EFA NICs"));
}

TEST_CASE("topology files load by path, also with ':N'", "[topology][files]") {
  const Topology shipped = loadTopology("trn2.48xlarge");
  CHECK(loadTopology(shipped.file).links.size() == shipped.links.size());

  TempDir dir;
  const std::string path = dir.write("line3.json", kCustomFile);
  const Topology t = loadTopology(path + ":3");
  CHECK(t.file == path);
  CHECK(t.name == "line3");
  CHECK(t.nodes == 3);
  REQUIRE(t.links.size() == 2);
  CHECK(t.links[0].bytesPerSec == 50e9);  // from /neuronLink
  CHECK(t.links[1].bytesPerSec == 25e9);  // its own
  CHECK(t.links[1].latencySec == 1e-6);
  REQUIRE(t.nics.size() == 1);
  CHECK(t.nics[0].chip == 1);
  CHECK(t.nics[0].bytesPerSec == 50e9);  // 400 Gbps
  CHECK(t.efaLatencySec == 10e-6);
  // Figures the file leaves out are the generation's.
  CHECK(t.device.hbmBytes == trnccl::device::trainium().hbmBytes);
}

TEST_CASE("TRNCCL_TOPO_DIR is searched first for names", "[topology][files]") {
  TempDir dir;
  dir.write("line3.json", kCustomFile);
  const ScopedTopoDir searched(dir.path);
  const Topology t = loadTopology("line3:2");
  const std::vector<std::string> names = trnccl::topo::shippedTopologyNames();
  CHECK(t.file == dir.path + "/line3.json");
  CHECK(t.nodes == 2);
  CHECK(std::find(names.begin(), names.end(), "line3") != names.end());
  CHECK(std::find(names.begin(), names.end(), "trn1.32xlarge") != names.end());
}

TEST_CASE("unknown names and unreadable files are refused", "[topology][files]") {
  try {
    loadTopology("trn9.huge");
    FAIL("no error");
  } catch (const trnccl::Error& e) {
    CHECK(e.code() == trncclInvalidArgument);
    const std::string message = e.what();
    CHECK_THAT(message, Catch::Contains("unknown topology 'trn9.huge'"));
    for (const Expected& shipped : kTable) CHECK_THAT(message, Catch::Contains(shipped.name));
  }
  CHECK_THROWS_WITH(
      loadTopology("/nonexistent/dir/x.json"),
      Catch::Contains("cannot read topology file '/nonexistent/dir/x.json'") && Catch::Contains("No such file"));
  TempDir dir;
  CHECK_THROWS_WITH(loadTopology(dir.path + "/"), Catch::Contains("is not a regular file"));
  // Neither endless devices nor FIFOs are read (or waited on) forever.
  CHECK_THROWS_WITH(loadTopology("/dev/zero"), Catch::Contains("'/dev/zero' is not a regular file"));
  const std::string fifo = dir.path + "/fifo.json";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(loadTopology(fifo), Catch::Contains("is not a regular file"));
  const std::string huge = dir.path + "/huge.json";
  std::filesystem::resize_file(dir.write("huge.json", "{"), 17 << 20);
  CHECK_THROWS_WITH(loadTopology(huge), Catch::Contains("larger than 16 MiB"));
  const std::string broken = dir.write("broken.json", "{\n  \"name\": \"x\",\n  \"chips\": 4,,\n}");
  CHECK_THROWS_WITH(loadTopology(broken), Catch::StartsWith(broken + ": malformed JSON") && Catch::Contains("line 3"));
  CHECK_THROWS_WITH(loadTopology(""), Catch::Contains("names no topology"));
}
