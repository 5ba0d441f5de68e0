#include "validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "nccl_tests/collective.h"
#include "nccl_tests/datatypes.h"
#include "options.h"
#include "sim/machine.h"

namespace trnccl::simtool {
namespace {

std::string envOf(const nlohmann::json& report, const char* name, const std::string& fallback) {
  const auto& env = report.at("env");
  return env.contains(name) ? env.at(name).get<std::string>() : fallback;
}

std::string line(const char* format, auto... values) {
  char text[256];
  std::snprintf(text, sizeof text, format, values...);
  return text;
}

}  // namespace

std::string validate(const std::string& perfJson, sim::Engine engine) {
  std::ifstream in(perfJson);
  if (!in) throwError(trncclInvalidArgument, "--validate: cannot read '" + perfJson + "'");
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(in);
    if (report.value("tool", "") != "trnccl-perf") throw std::runtime_error("not written by trnccl-perf -J");
    if (envOf(report, "TRNCCL_EMULATE_LINKS", "0") != "1")
      throw std::runtime_error(
          "measured without TRNCCL_EMULATE_LINKS=1, so its times are this host's, not the "
          "modelled machine's");
    const std::string topology = envOf(report, "TRNCCL_TOPO", "");
    if (topology.empty()) throw std::runtime_error("measured without TRNCCL_TOPO");
    const double scale = std::stod(envOf(report, "TRNCCL_EMULATE_SCALE", "1000"));
    const perf::Collective collective = perf::parse_collective(report.at("collective").get<std::string>());
    const sim::Machine machine(topology, {}, report.at("nranks").get<int>(),
                               envOf(report, "TRNCCL_RANK_ORDER", "core"));
    std::string text = "# trnccl-sim --validate " + perfJson + ": " + machine.describe() + ", emulation scale " +
                       line("%g", scale) + "; times in modelled us\n";
    text += line("# %12s %-12s %12s %12s %8s\n", "size(B)", "algo", "measured", "predicted", "error");
    std::vector<double> errors;
    for (const auto& row : report.at("rows")) {
      sim::Call call;
      call.collective = simulatedCollective(collective);
      call.count = row.at("count").get<size_t>();
      call.type = perf::parse_types(row.at("type").get<std::string>()).at(0);
      call.op = perf::parse_ops(row.at("redop").get<std::string>()).at(0);
      call.algorithm = row.at("algorithm").get<std::string>();
      call.engine = engine;
      const double measured = row.at("out_of_place").at("time_us").get<double>() / scale;
      const double predicted = sim::simulate(machine, call).seconds * 1e6;
      const double error = (predicted - measured) / measured;
      const size_t bytes = row.at("size_bytes").get<size_t>();
      if (bytes >= 64 * 1024) errors.push_back(std::abs(error));
      text += line("  %12zu %-12s %12.2f %12.2f %+7.1f%%\n", bytes, call.algorithm.c_str(), measured, predicted,
                   100 * error);
    }
    if (errors.empty()) throw std::runtime_error("no row of 64 KiB or more");
    std::sort(errors.begin(), errors.end());
    const size_t n = errors.size();
    const double median = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
    return text + line("# median absolute error over sizes >= 64 KiB: %.1f%% (%zu rows)\n", 100 * median, n);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throwError(trncclInvalidArgument, "--validate '" + perfJson + "': " + e.what());
  }
}

}  // namespace trnccl::simtool
