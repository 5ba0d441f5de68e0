#include "output.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "nccl_tests/datatypes.h"
#include "sim/machine.h"

namespace trnccl::simtool {
namespace {

std::string printf(const char* format, auto... values) {
  char line[1024];
  std::snprintf(line, sizeof line, format, values...);
  return line;
}

// The runtime era a machine's launch, per-message and proxy costs come from.
std::string runtimeOf(const Row& r) {
  const std::string& era = r.on->topology().engine.runtime;
  return era.empty() ? "file" : era;
}

std::string table(const Options& o, const std::vector<Row>& rows) {
  std::string text = printf("# trnccl-sim: %s, %s %s\n", std::string(perf::collective_name(o.collective)).c_str(),
                            std::string(perf::type_name(o.type)).c_str(), std::string(perf::op_name(o.op)).c_str());
  // Each machine once: its hardware file, the runtime era and the band's basis.
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0 && rows[i].machine == rows[i - 1].machine) continue;
    const topo::Topology& t = rows[i].on->topology();
    text += printf("# %s: hardware %s (%s), Neuron runtime %s; band +-%.0f%%, %s\n", rows[i].machine.c_str(),
                   t.device.generation, t.file.c_str(), runtimeOf(rows[i]).c_str(), 100 * rows[i].band.fraction,
                   rows[i].band.basis.c_str());
  }
  // Wide enough for "trn1.32xlarge:2048", "hierarchical_mesh" and 4 GiB.
  text += printf("# %-28s %6s %-17s %-17s %12s %12s %12s %23s %8s %8s  %s\n", "machine", "ranks", "algo", "chosen",
                 "size(B)", "count", "time(us)", "band(us)", "algbw", "busbw", "bound (engine)");
  for (const Row& r : rows) {
    const double us = r.prediction.seconds * 1e6;
    text += printf("  %-28s %6d %-17s %-17s %12zu %12zu %12.2f %11.2f-%-11.2f %8.2f %8.2f  %s (%s)\n",
                   r.machine.c_str(), r.ranks, r.requested.c_str(), r.prediction.algorithm.c_str(), r.bytes, r.count,
                   us, r.band.low(us), r.band.high(us), r.algbw, r.busbw,
                   r.prediction.bound.empty() ? "-" : r.prediction.bound.c_str(), sim::engineName(r.prediction.engine));
  }
  return text;
}

std::string csv(const std::vector<Row>& rows) {
  std::string text =
      "machine,runtime,ranks,algo,chosen,engine,bytes,count,time_us,time_low_us,time_high_us,algbw_gbps,busbw_gbps,"
      "bound,band_basis\n";
  for (const Row& r : rows) {
    const double us = r.prediction.seconds * 1e6;
    text += printf("\"%s\",%s,%d,%s,%s,%s,%zu,%zu,%.4f,%.4f,%.4f,%.4f,%.4f,\"%s\",\"%s\"\n", r.machine.c_str(),
                   runtimeOf(r).c_str(), r.ranks, r.requested.c_str(), r.prediction.algorithm.c_str(),
                   sim::engineName(r.prediction.engine), r.bytes, r.count, us, r.band.low(us), r.band.high(us), r.algbw,
                   r.busbw, r.prediction.bound.c_str(), r.band.basis.c_str());
  }
  return text;
}

std::string json(const Options& o, const std::vector<Row>& rows) {
  nlohmann::json out;
  out["collective"] = perf::collective_name(o.collective);
  out["type"] = perf::type_name(o.type);
  out["op"] = perf::op_name(o.op);
  out["rows"] = nlohmann::json::array();
  for (const Row& r : rows)
    out["rows"].push_back({{"machine", r.machine},
                           {"ranks", r.ranks},
                           {"algo", r.requested},
                           {"chosen", r.prediction.algorithm},
                           {"engine", sim::engineName(r.prediction.engine)},
                           {"bytes", r.bytes},
                           {"count", r.count},
                           {"runtime", runtimeOf(r)},
                           {"time_us", r.prediction.seconds * 1e6},
                           {"time_low_us", r.band.low(r.prediction.seconds * 1e6)},
                           {"time_high_us", r.band.high(r.prediction.seconds * 1e6)},
                           {"band_basis", r.band.basis},
                           {"algbw_gbps", r.algbw},
                           {"busbw_gbps", r.busbw},
                           {"bound", r.prediction.bound}});
  return out.dump(2) + "\n";
}

}  // namespace

std::string formatRows(const Options& o, const std::vector<Row>& rows) {
  if (o.format == "csv") return csv(rows);
  if (o.format == "json") return json(o, rows);
  return table(o, rows);
}

}  // namespace trnccl::simtool
