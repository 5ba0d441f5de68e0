#include "topology/runtime_era.h"

#include <algorithm>

#include "base/error.h"
#include "topology/data_files.h"
#include "topology/json_field.h"

namespace trnccl::topo {
namespace {

// Eras are named by year, as shared/calibration/README.md names them.
constexpr const char* kEras[] = {"2023", "2025", "2026"};

EraFigure readFigure(const JsonField& field) {
  field.allowOnly({"value", "source"});
  EraFigure f{field["value"].asNonNegative(), field["source"].asString()};
  if (f.source.empty()) field["source"].fail("empty: say where the figure comes from");
  return f;
}

}  // namespace

std::vector<std::string> runtimeEraNames() { return {std::begin(kEras), std::end(kEras)}; }

RuntimeEra parseRuntimeEra(const std::string& jsonText, const std::string& fileName) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(jsonText, nullptr, true, /*ignore_comments=*/true);
  } catch (const nlohmann::json::exception& e) {
    throwError(trncclInvalidArgument, fileName + ": malformed JSON: " + e.what());
  }
  const JsonField root(doc, fileName, nlohmann::json::json_pointer());
  root.allowOnly({"era", "releases", "launchSec", "stepSec", "proxySec", "reduceSlices", "band", "fittedOn"});
  RuntimeEra era;
  era.name = root["era"].asString();
  era.releases = root["releases"].asString();
  era.launchSec = readFigure(root["launchSec"]);
  era.stepSec = readFigure(root["stepSec"]);
  era.proxySec = readFigure(root["proxySec"]);
  if (doc.contains("reduceSlices")) {
    era.reduceSlices = readFigure(root["reduceSlices"]);
    if (era.reduceSlices.value < 1) root["reduceSlices"]["value"].fail("a message is cut into 1 slice or more");
  }
  era.band = readFigure(root["band"]);
  // {"trainium:1": 0.06, ...}: each machine and its own spread.
  const JsonField fitted = root["fittedOn"];
  for (const auto& [machine, value] : doc["fittedOn"].items()) {
    if (!value.is_number()) fitted.failAt(machine.c_str(), "expected the machine's band, a number");
    era.fittedOn.emplace_back(machine, fitted[machine.c_str()].asNonNegative());
  }
  return era;
}

RuntimeEra loadRuntimeEra(const std::string& name) {
  const std::vector<std::string> names = runtimeEraNames();
  const std::string era = name.empty() ? names.back() : name;
  if (std::find(names.begin(), names.end(), era) == names.end()) {
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    throwError(trncclInvalidArgument, "--runtime '" + name + "': unknown Neuron runtime era (known: " + known + ")");
  }
  const std::string path = shippedDataPath("runtimes/" + era + ".json");
  if (path.empty()) throwError(trncclInvalidArgument, "runtime era " + era + ": runtimes/" + era + ".json not found");
  RuntimeEra parsed = parseRuntimeEra(readDataFile(path), path);
  if (parsed.name != era) throwError(trncclInvalidArgument, path + ": /era: '" + parsed.name + "', expected " + era);
  return parsed;
}

void applyRuntimeEra(const RuntimeEra& era, Topology& t) {
  const std::string from = "runtime " + era.name + ": ";
  t.engine.launchSec = era.launchSec.value;
  t.engine.sources[0] = from + era.launchSec.source;
  t.engine.dmaMessageSec = era.stepSec.value;
  t.engine.sources[2] = from + era.stepSec.source;
  t.engine.proxySec = era.proxySec.value;
  t.engine.proxySource = from + era.proxySec.source;
  t.engine.reduceSlices = era.reduceSlices.value;
  t.engine.reduceSlicesSource = from + era.reduceSlices.source;
  t.engine.runtime = era.name;
}

}  // namespace trnccl::topo
