// Bad topology files: each is refused with the file name, the JSON pointer of
// the bad value and what is wrong with it.
#include <array>
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "base/error.h"
#include "topology/topology.h"

using nlohmann::json;
using trnccl::topo::parseTopology;

namespace {

// A valid 4-chip ring with explicit extra figures, mutated by each case.
json validFile() {
  return json::parse(R"({
    "name": "ring4", "chips": 4, "coresPerChip": 2,
    "device": {"generation": "trainium", "hbmBytes": 1e9},
    "onChip": {"bytesPerSec": 1e12, "latencySec": 5e-7},
    "torus": [4],
    "neuronLink": {"bytesPerSec": 100e9, "latencySec": 1e-6},
    "links": [{"a": 0, "b": 2}, {"a": 1, "b": 3, "latencySec": 2e-6}],
    "efa": {"gbpsPerNic": 100, "nicChips": [0, 2], "latencySec": 15e-6}
  })");
}

// Gives `file` a collective engine of two of its three figures, with their
// sources; returns the section.
json& addEngine(json& file) {
  return file["collectiveEngine"] = json::parse(R"({
    "launchSec": {"value": 3e-5, "source": "a measurement"},
    "dmaBytesPerSec": {"value": 2e11, "source": "a data sheet"}
  })");
}

// The message parseTopology refuses `file` with; fails the test if it does not.
std::string refusal(const json& file) {
  try {
    parseTopology(file.dump(), "bad.json");
  } catch (const trnccl::Error& e) {
    CHECK(e.code() == trncclInvalidArgument);
    return e.what();
  }
  FAIL("bad.json was accepted: " << file.dump());
  return "";
}

}  // namespace

TEST_CASE("the valid base file loads as written", "[topology][validation]") {
  const auto t = parseTopology(validFile().dump(), "good.json");
  CHECK(t.file == "good.json");
  CHECK(t.coresPerChip == 2);
  CHECK(t.device.hbmBytes == 1e9);
  CHECK(t.device.dmaBytesPerSec == trnccl::device::trainium().dmaBytesPerSec);
  // The ring's 4 links plus the 2 listed diagonals, each pair once.
  std::map<std::pair<int, int>, std::pair<double, double>> links;
  for (const auto& l : t.links) links[std::minmax(l.a, l.b)] = {l.bytesPerSec, l.latencySec};
  CHECK(t.links.size() == 6);
  CHECK(links.size() == 6);
  CHECK(links[{0, 2}] == std::pair{100e9, 1e-6});
  CHECK(links[{1, 3}] == std::pair{100e9, 2e-6});
  CHECK(links[{0, 3}] == std::pair{100e9, 1e-6});  // the ring's wrap-around
}

TEST_CASE("the collective engine's figures are read with their sources, and one left out is 0 (not modelled)",
          "[topology][validation]") {
  const auto without = parseTopology(validFile().dump(), "f.json");
  CHECK(without.engine.launchSec == 0);
  CHECK(without.engine.dmaBytesPerSec == 0);
  CHECK(without.engine.dmaMessageSec == 0);
  json file = validFile();
  addEngine(file);
  const auto t = parseTopology(file.dump(), "f.json");
  CHECK(t.engine.launchSec == 3e-5);
  CHECK(t.engine.dmaBytesPerSec == 2e11);
  CHECK(t.engine.dmaMessageSec == 0);
  CHECK(t.engine.reduceBytesPerSec == 0);
  CHECK(t.engine.sources == std::array<std::string, 4>{"a measurement", "a data sheet", "", ""});
  file["collectiveEngine"]["dmaMessageSec"] = json::parse(R"({"value": 0, "source": "none: not modelled"})");
  const auto zero = parseTopology(file.dump(), "f.json");
  CHECK(zero.engine.dmaMessageSec == 0);
  CHECK(zero.engine.sources[2] == "none: not modelled");
  file["collectiveEngine"]["reduceBytesPerSec"] = json::parse(R"({"value": 5e11, "source": "a fit"})");
  const auto reducing = parseTopology(file.dump(), "f.json");
  CHECK(reducing.engine.reduceBytesPerSec == 5e11);
  CHECK(reducing.engine.sources[3] == "a fit");
  file["collectiveEngine"] = json::object();  // an empty section: nothing modelled
  const auto empty = parseTopology(file.dump(), "f.json");
  CHECK(empty.engine.launchSec == 0);
  CHECK(empty.engine.dmaBytesPerSec == 0);
}

TEST_CASE("listed links override the figures of torus links", "[topology][validation]") {
  json file = validFile();
  file["links"] = json::parse(R"([{"a": 1, "b": 0, "bytesPerSec": 5e9}, {"a": 3, "b": 2, "latencySec": 0}])");
  const auto t = parseTopology(file.dump(), "f.json");
  REQUIRE(t.links.size() == 4);
  for (const auto& l : t.links) {
    const std::pair<int, int> pair = std::minmax(l.a, l.b);
    CHECK(l.bytesPerSec == (pair == std::pair{0, 1} ? 5e9 : 100e9));
    CHECK(l.latencySec == (pair == std::pair{2, 3} ? 0 : 1e-6));
  }
}

TEST_CASE("per-dimension NeuronLink figures apply to their dimension", "[topology][validation]") {
  json file = validFile();
  file["chips"] = 8;
  file["torus"] = {4, 2};
  file["neuronLink"]["bytesPerSec"] = {10e9, 20e9};
  file.erase("links");
  const auto t = parseTopology(file.dump(), "f.json");
  CHECK(t.links.size() == 8 + 4);  // two x rings of 4, and one y link per column (a dimension of 2)
  for (const auto& l : t.links) CHECK(l.bytesPerSec == (l.a / 4 == l.b / 4 ? 10e9 : 20e9));
}

TEST_CASE("comments are allowed in topology files", "[topology][validation]") {
  const std::string text = "// leading\n" + validFile().dump(2).insert(1, "\n  /* block */\n");
  CHECK(parseTopology(text, "c.json").chips == 4);
}

TEST_CASE("bad topology files are refused naming the file, the JSON path and the problem", "[topology][validation]") {
  struct Case {
    const char* what;
    void (*mutate)(json&);
    const char* expected;
  };
  const Case cases[] = {
      {"missing field", [](json& f) { f.erase("chips"); }, "bad.json: /chips: missing field"},
      {"missing nested field", [](json& f) { f["efa"].erase("latencySec"); },
       "bad.json: /efa/latencySec: missing field"},
      {"wrong type", [](json& f) { f["chips"] = "4"; }, "bad.json: /chips: expected an integer, found a string"},
      {"wrong type of object", [](json& f) { f["device"] = json::array(); },
       "bad.json: /device: expected an object, found an array"},
      {"fraction for an integer", [](json& f) { f["coresPerChip"] = 1.5; },
       "bad.json: /coresPerChip: expected an integer"},
      {"unknown field", [](json& f) { f["chipz"] = 4; }, "bad.json: /chipz: unknown field"},
      {"empty name", [](json& f) { f["name"] = ""; }, "bad.json: /name: empty"},
      {"zero chips", [](json& f) { f["chips"] = 0; }, "bad.json: /chips: 0 is out of range (1 to 1024)"},
      {"link to a chip that does not exist", [](json& f) { f["links"][1]["b"] = 17; },
       "bad.json: /links/1/b: chip 17 does not exist (chips are 0 to 3)"},
      {"negative chip", [](json& f) { f["links"][0]["a"] = -1; }, "bad.json: /links/0/a: -1 is out of range"},
      {"link to itself", [](json& f) { f["links"][0]["b"] = 0; }, "bad.json: /links/0/b: a link from chip 0 to itself"},
      {"link without its chips", [](json& f) { f["links"][1].erase("a"); }, "bad.json: /links/1/a: missing field"},
      {"torus that does not match the chips",
       [](json& f) {
         f["torus"] = {2, 3};
       },
       "bad.json: /torus: a 2x3 torus has 6 chips, but /chips is 4"},
      {"torus with a zero dimension",
       [](json& f) {
         f["torus"] = {4, 0};
       },
       "bad.json: /torus/1: 0 is out of range"},
      {"empty torus", [](json& f) { f["torus"] = json::array(); }, "bad.json: /torus: empty"},
      {"zero bandwidth", [](json& f) { f["neuronLink"]["bytesPerSec"] = 0; },
       "bad.json: /neuronLink/bytesPerSec: is zero"},
      {"negative link bandwidth", [](json& f) { f["links"][0]["bytesPerSec"] = -5; },
       "bad.json: /links/0/bytesPerSec: -5 is negative"},
      {"negative latency", [](json& f) { f["neuronLink"]["latencySec"] = -1e-6; },
       "bad.json: /neuronLink/latencySec: -1e-06 is negative"},
      {"negative on-chip latency", [](json& f) { f["onChip"]["latencySec"] = -1; },
       "bad.json: /onChip/latencySec: -1 is negative"},
      {"zero EFA bandwidth", [](json& f) { f["efa"]["gbpsPerNic"] = 0; }, "bad.json: /efa/gbpsPerNic: is zero"},
      {"per-dimension figures of the wrong length",
       [](json& f) {
         f["neuronLink"]["bytesPerSec"] = {1e9, 2e9};
       },
       "bad.json: /neuronLink/bytesPerSec: has 2 entries, but the torus has 1 dimensions"},
      {"listed link without a figure to default to", [](json& f) { f["neuronLink"]["latencySec"] = {1e-6}; },
       "bad.json: /links/0/latencySec: missing field (/neuronLink gives it per torus dimension only)"},
      {"torus without figures", [](json& f) { f.erase("neuronLink"); }, "bad.json: /neuronLink: missing field"},
      {"NIC next to a chip that does not exist", [](json& f) { f["efa"]["nicChips"][1] = 9; },
       "bad.json: /efa/nicChips/1: chip 9 does not exist (chips are 0 to 3)"},
      {"no NICs listed", [](json& f) { f["efa"]["nicChips"] = json::array(); }, "bad.json: /efa/nicChips: empty"},
      {"unknown device generation", [](json& f) { f["device"]["generation"] = "tpu"; },
       "bad.json: /device/generation: 'tpu' is not a known device generation (trainium, trainium2, trainium3)"},
      {"nonpositive device figure", [](json& f) { f["device"]["hbmBytesPerSec"] = 0; },
       "bad.json: /device/hbmBytesPerSec: is zero"},
      {"chips not connected",
       [](json& f) {
         f.erase("torus");
         f["links"] = json::parse(R"([{"a": 0, "b": 1}, {"a": 2, "b": 3}])");
       },
       "bad.json: /links: chip 2 cannot be reached from chip 0"},
      {"chips with no links at all",
       [](json& f) {
         f.erase("torus");
         f.erase("links");
       },
       "bad.json: /chips: 4 chips but no /torus, /links or /neuronSwitch joins them"},
      {"a switch beside chip links",
       [](json& f) {
         f["neuronSwitch"] = json::parse(R"({"chipsPerServer": 2, "bytesPerSec": 1e12, "latencySec": 1e-6,
                                                         "crossServerLatencySec": 1e-6})");
       },
       "bad.json: /torus: a switched instance (/neuronSwitch) has no chip links"},
      {"servers the chips do not fill",
       [](json& f) {
         for (const char* key : {"torus", "links", "neuronLink"}) f.erase(key);
         f["neuronSwitch"] = json::parse(R"({"chipsPerServer": 3, "bytesPerSec": 1e12, "latencySec": 1e-6,
                                             "crossServerLatencySec": 1e-6})");
       },
       "bad.json: /neuronSwitch/chipsPerServer: 4 chips do not fill servers of 3"},
      {"a switch without its port bandwidth",
       [](json& f) {
         for (const char* key : {"torus", "links", "neuronLink"}) f.erase(key);
         f["neuronSwitch"] = json::parse(R"({"chipsPerServer": 2, "latencySec": 1e-6, "crossServerLatencySec": 0})");
       },
       "bad.json: /neuronSwitch/bytesPerSec: missing field"},
      {"listed link with no default figures",
       [](json& f) {
         f.erase("torus");
         f.erase("neuronLink");
         f["links"] = json::parse(R"([{"a": 0, "b": 1}, {"a": 1, "b": 2}, {"a": 2, "b": 3}])");
       },
       "bad.json: /links/0/bytesPerSec: missing field (there is no /neuronLink to take it from)"},
      {"instances without EFA",
       [](json& f) {
         f.erase("efa");
         f["nodes"] = 2;
       },
       "bad.json: /nodes: 2 instances need EFA NICs"},
      {"engine figure without its source", [](json& f) { addEngine(f)["launchSec"].erase("source"); },
       "bad.json: /collectiveEngine/launchSec/source: missing field"},
      {"engine figure with an empty source", [](json& f) { addEngine(f)["dmaBytesPerSec"]["source"] = ""; },
       "bad.json: /collectiveEngine/dmaBytesPerSec/source: empty"},
      {"engine figure without its value", [](json& f) { addEngine(f)["launchSec"].erase("value"); },
       "bad.json: /collectiveEngine/launchSec/value: missing field"},
      {"engine figure as a bare number", [](json& f) { addEngine(f)["launchSec"] = 3e-5; },
       "bad.json: /collectiveEngine/launchSec: expected an object"},
      {"unknown engine figure", [](json& f) { addEngine(f)["launchUs"] = 3e-5; },
       "bad.json: /collectiveEngine/launchUs: unknown field"},
      {"unknown member of an engine figure", [](json& f) { addEngine(f)["launchSec"]["unit"] = "s"; },
       "bad.json: /collectiveEngine/launchSec/unit: unknown field"},
      {"negative engine figure", [](json& f) { addEngine(f)["launchSec"]["value"] = -1e-6; },
       "bad.json: /collectiveEngine/launchSec/value: -1e-06 is negative"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    json file = validFile();
    c.mutate(file);
    CHECK_THAT(refusal(file), Catch::StartsWith(c.expected));
  }
}

TEST_CASE("malformed JSON is refused with the parser's position", "[topology][validation]") {
  CHECK_THROWS_WITH(parseTopology("{\n  \"name\": \"x\",\n  \"chips\": }", "bad.json"),
                    Catch::StartsWith("bad.json: malformed JSON: parse error at line 3, column"));
  CHECK_THROWS_WITH(parseTopology("", "empty.json"), Catch::StartsWith("empty.json: malformed JSON"));
  CHECK_THROWS_WITH(parseTopology("[1, 2]", "array.json"),
                    Catch::StartsWith("array.json: (top level): expected an object, found an array"));
}

// Found by fuzz_topology: the JSON parser's number overflow escaped as
// nlohmann's out_of_range instead of an InvalidArgument naming the file.
TEST_CASE("a number too large for a double is malformed JSON, not a crash", "[topology][validation]") {
  CHECK_THROWS_WITH(parseTopology("5E557\n73", "huge.json"),
                    Catch::StartsWith("huge.json: malformed JSON: number overflow parsing '5E557'"));
  CHECK_THROWS_WITH(parseTopology(R"({"name": "x", "chips": 1e999})", "huge.json"),
                    Catch::StartsWith("huge.json: malformed JSON: number overflow"));
}
