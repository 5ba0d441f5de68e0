// parseTopology: one topology file's JSON into a Topology, refusing anything
// it cannot use with the file name and the JSON pointer of the bad value.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "base/error.h"
#include "topology/chip_graph.h"
#include "topology/json_field.h"
#include "topology/topology.h"
#include "topology/torus.h"

namespace trnccl::topo {

namespace {

using nlohmann::json;
constexpr int kMaxInt = std::numeric_limits<int>::max();

device::DeviceModel readDevice(const JsonField& field) {
  field.allowOnly({"generation", "hbmBytes", "hbmBytesPerSec", "dmaBytesPerSec", "vectorFlopsFp32"});
  const JsonField generation = field["generation"];
  const std::string name = generation.asString();
  std::string known;
  for (const device::DeviceModel* m : {&device::trainium(), &device::trainium2(), &device::trainium3()}) {
    if (name != m->generation) {
      known += (known.empty() ? "" : ", ") + std::string(m->generation);
      continue;
    }
    device::DeviceModel model = *m;  // figures the file leaves out are the generation's
    for (auto [key, figure] :
         {std::pair{"hbmBytes", &model.hbmBytes}, std::pair{"hbmBytesPerSec", &model.hbmBytesPerSec},
          std::pair{"dmaBytesPerSec", &model.dmaBytesPerSec}, std::pair{"vectorFlopsFp32", &model.vectorFlopsFp32}}) {
      if (auto f = field.find(key)) *figure = f->asPositive();
    }
    return model;
  }
  generation.fail("'" + name + "' is not a known device generation (" + known + ")");
}

int readChip(const JsonField& field, int chips) {
  const int chip = field.asInt(0, kMaxInt);
  if (chip >= chips) {
    field.fail("chip " + std::to_string(chip) + " does not exist (chips are 0 to " + std::to_string(chips - 1) + ")");
  }
  return chip;
}

std::vector<int> readTorus(const JsonField& field, int chips) {
  std::vector<int> shape;
  long long size = 1;  // saturates above kMaxChips, so it cannot overflow
  for (size_t d = 0; d < field.size(); ++d) {
    shape.push_back(field[d].asInt(1, kMaxChips));
    size = std::min(size * shape.back(), kMaxChips + 1LL);
  }
  if (shape.empty()) field.fail("empty (omit /torus for an instance without one)");
  if (size != chips) {
    std::string dims;
    for (int n : shape) dims += (dims.empty() ? "" : "x") + std::to_string(n);
    field.fail("a " + dims + " torus has " +
               (size > kMaxChips ? "more than " + std::to_string(kMaxChips) : std::to_string(size)) +
               " chips, but /chips is " + std::to_string(chips));
  }
  return shape;
}

// How each figure of a link is read: bandwidth must be positive, latency may
// be zero (an ideal link).
using FigureReader = double (JsonField::*)() const;
struct LinkFigure {
  const char* key;
  double Link::*member;
  FigureReader read;
};
constexpr LinkFigure kLinkFigures[] = {{"bytesPerSec", &Link::bytesPerSec, &JsonField::asPositive},
                                       {"latencySec", &Link::latencySec, &JsonField::asNonNegative}};

// A figure of /neuronLink: one number for every link, or one per torus
// dimension. Returns the figure of dimension `dim`, or of a link outside the
// torus (dim < 0: nullopt where the file gives only per-dimension figures).
std::optional<double> defaultFigure(const JsonField& field, FigureReader read, size_t dims, int dim) {
  if (!field.isArray()) return (field.*read)();
  if (field.size() != dims) {
    field.fail("has " + std::to_string(field.size()) + " entries, but the torus has " + std::to_string(dims) +
               " dimensions");
  }
  if (dim < 0) return std::nullopt;
  return (field[static_cast<size_t>(dim)].*read)();
}

// A link of /links: a new one, or new figures for the torus link (or earlier
// listed link) between the same chips.
void readListedLink(const JsonField& field, const std::optional<JsonField>& defaults, Topology& t,
                    std::map<std::pair<int, int>, size_t>& byPair) {
  field.allowOnly({"a", "b", "bytesPerSec", "latencySec"});
  const int a = readChip(field["a"], t.chips);
  const int b = readChip(field["b"], t.chips);
  if (a == b) field["b"].fail("a link from chip " + std::to_string(a) + " to itself");
  auto [it, added] = byPair.try_emplace(std::minmax(a, b), t.links.size());
  if (added) t.links.push_back({a, b, 0, 0});
  Link& link = t.links[it->second];
  for (const LinkFigure& figure : kLinkFigures) {
    if (auto given = field.find(figure.key)) {
      link.*figure.member = ((*given).*figure.read)();
    } else if (added) {
      if (!defaults) field.failAt(figure.key, "missing field (there is no /neuronLink to take it from)");
      auto fallback = defaultFigure((*defaults)[figure.key], figure.read, t.torus.size(), -1);
      if (!fallback) field.failAt(figure.key, "missing field (/neuronLink gives it per torus dimension only)");
      link.*figure.member = *fallback;
    }
  }
}

void readLinks(const JsonField& root, Topology& t) {
  const auto torus = root.find("torus");
  const auto listed = root.find("links");
  const auto defaults = root.find("neuronLink");
  if (defaults) defaults->allowOnly({"bytesPerSec", "latencySec"});
  std::map<std::pair<int, int>, size_t> byPair;
  if (torus) {
    t.torus = readTorus(*torus, t.chips);
    const JsonField figures = root["neuronLink"];
    for (const TorusLink& l : torusLinks(t.torus)) {
      byPair[std::minmax(l.a, l.b)] = t.links.size();
      Link& link = t.links.emplace_back(Link{l.a, l.b, 0, 0});
      for (const LinkFigure& figure : kLinkFigures) {
        link.*figure.member = *defaultFigure(figures[figure.key], figure.read, t.torus.size(), l.dim);
      }
    }
  }
  if (listed) {
    for (size_t i = 0; i < listed->size(); ++i) readListedLink((*listed)[i], defaults, t, byPair);
  }
}

// /neuronSwitch: {"chipsPerServer", "bytesPerSec" (each chip's port, each
// direction), "latencySec", "crossServerLatencySec"}: chips joined by
// switches instead of links.
void readSwitch(const JsonField& root, const JsonField& field, Topology& t) {
  for (const char* links : {"torus", "links", "neuronLink"})
    if (root.find(links)) root[links].fail("a switched instance (/neuronSwitch) has no chip links");
  field.allowOnly({"chipsPerServer", "bytesPerSec", "latencySec", "crossServerLatencySec"});
  NeuronSwitch& sw = t.neuronSwitch;
  sw.chipsPerServer = field["chipsPerServer"].asInt(1, t.chips);
  if (t.chips % sw.chipsPerServer != 0)
    field["chipsPerServer"].fail(std::to_string(t.chips) + " chips do not fill servers of " +
                                 std::to_string(sw.chipsPerServer));
  sw.bytesPerSec = field["bytesPerSec"].asPositive();
  sw.latencySec = field["latencySec"].asNonNegative();
  sw.crossServerLatencySec = field["crossServerLatencySec"].asNonNegative();
}

void checkConnected(const JsonField& root, const Topology& t) {
  if (t.chips == 1 || t.neuronSwitch.present()) return;
  if (t.links.empty())
    root["chips"].fail(std::to_string(t.chips) + " chips but no /torus, /links or /neuronSwitch joins them");
  const std::vector<int> hops = ChipGraph(t.chips, t.links).distances(0);
  for (int chip = 0; chip < t.chips; ++chip) {
    if (hops[chip] < 0) {
      root["links"].fail("chip " + std::to_string(chip) +
                         " cannot be reached from chip 0 over NeuronLink; the chips of an instance must be connected");
    }
  }
}

void readEfa(const JsonField& field, Topology& t) {
  field.allowOnly({"gbpsPerNic", "nicChips", "latencySec", "efficiency"});
  const double bytesPerSec = field["gbpsPerNic"].asPositive() * 1e9 / 8;
  const JsonField chips = field["nicChips"];
  if (chips.size() == 0) chips.fail("empty (omit /efa for an instance without EFA)");
  for (size_t i = 0; i < chips.size(); ++i) t.nics.push_back({readChip(chips[i], t.chips), bytesPerSec});
  t.efaLatencySec = field["latencySec"].asNonNegative();
  // {"value": fraction of the line rate, "source": ...}, like the engine's figures.
  if (auto efficiency = field.find("efficiency")) {
    efficiency->allowOnly({"value", "source"});
    t.efaEfficiency = (*efficiency)["value"].asPositive();
    if (t.efaEfficiency > 1) (*efficiency)["value"].fail("above 1 (a fraction of the NIC's line rate)");
    t.efaEfficiencySource = (*efficiency)["source"].asString();
    if (t.efaEfficiencySource.empty()) (*efficiency)["source"].fail("empty: say where the figure comes from");
  }
}

// Each figure: {"value": number, "source": "where it comes from"}; a figure
// without its source is refused, so no number enters the model unexplained.
EngineModel readEngine(const JsonField& field) {
  static_assert(kEngineFigures.size() == 4, "the figures allowed here are kEngineFigures'");
  field.allowOnly({"launchSec", "dmaBytesPerSec", "dmaMessageSec", "reduceBytesPerSec"});
  EngineModel model;
  for (size_t i = 0; i < kEngineFigures.size(); ++i) {
    const auto figure = field.find(kEngineFigures[i].key);
    if (!figure) continue;
    figure->allowOnly({"value", "source"});
    model.*kEngineFigures[i].member = (*figure)["value"].asNonNegative();
    model.sources[i] = (*figure)["source"].asString();
    if (model.sources[i].empty()) (*figure)["source"].fail("empty: say where the figure comes from");
  }
  return model;
}

std::string parserMessage(const json::exception& e) {
  const std::string what = e.what();  // "[json.exception.parse_error.101] parse error at line 3, ..."
  const size_t start = what.find("] ");
  return start == std::string::npos ? what : what.substr(start + 2);
}

}  // namespace

Topology parseTopology(const std::string& jsonText, const std::string& fileName) {
  json doc;
  try {
    doc = json::parse(jsonText, nullptr, true, /*ignore_comments=*/true);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number like 1e999
    throwError(trncclInvalidArgument, fileName + ": malformed JSON: " + parserMessage(e));
  }
  const JsonField root(doc, fileName, json::json_pointer());
  root.allowOnly({"name", "chips", "coresPerChip", "nodes", "device", "onChip", "torus", "neuronLink", "links",
                  "neuronSwitch", "efa", "collectiveEngine"});
  Topology t;
  t.file = fileName;
  t.name = root["name"].asString();
  if (t.name.empty()) root["name"].fail("empty");
  t.chips = root["chips"].asInt(1, kMaxChips);
  t.coresPerChip = root["coresPerChip"].asInt(1, kMaxCoresPerChip);
  if (auto nodes = root.find("nodes")) t.nodes = nodes->asInt(1, kMaxNodes);
  t.device = readDevice(root["device"]);
  const JsonField onChip = root["onChip"];
  onChip.allowOnly({"bytesPerSec", "latencySec"});
  t.onChipBytesPerSec = onChip["bytesPerSec"].asPositive();
  t.onChipLatencySec = onChip["latencySec"].asNonNegative();
  if (auto neuronSwitch = root.find("neuronSwitch"))
    readSwitch(root, *neuronSwitch, t);
  else
    readLinks(root, t);
  checkConnected(root, t);
  if (auto efa = root.find("efa")) readEfa(*efa, t);
  if (auto engine = root.find("collectiveEngine")) t.engine = readEngine(*engine);
  if (t.nodes > 1 && t.nics.empty()) {
    root["nodes"].fail(std::to_string(t.nodes) + " instances need EFA NICs to be joined, but there is no /efa");
  }
  return t;
}

}  // namespace trnccl::topo
