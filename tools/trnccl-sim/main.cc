// trnccl-sim: predicts what a collective costs on a topology nobody has on
// their desk, from the very schedules the runtime executes.
#include <malloc.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "algorithms/registry.h"
#include "base/error.h"
#include "calibration.h"
#include "chakra_study.h"
#include "explain.h"
#include "links.h"
#include "options.h"
#include "output.h"
#include "plot.h"
#include "sweep.h"
#include "validate.h"
#include "workload.h"

int main(int argc, char** argv) {
  using namespace trnccl;
  // Schedules of tens of megabytes are built and freed rank after rank: keep
  // freed memory for the next one instead of returning it to the kernel and
  // faulting it in again (a third of the time of a 65,536-rank ring).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  try {
    const simtool::Options options = simtool::parseOptions(std::vector<std::string>(argv + 1, argv + argc));
    if (options.help) {
      std::printf("%s\n", simtool::usageText().c_str());
      return 0;
    }
    if (options.listAlgorithms) {
      for (const algo::RegisteredAlgorithm& a : algo::registeredAlgorithms())
        std::printf("%s %s\n", a.name.c_str(), algo::reachName(a.reach));
      return 0;
    }
    if (!options.validate.empty()) {
      std::fputs(simtool::validate(options.validate, options.engine).c_str(), stdout);
      return 0;
    }
    if (!options.check.empty()) {
      std::fputs(simtool::check(options).c_str(), stdout);
      return 0;
    }
    if (!options.calibrate.empty()) {
      std::fputs(simtool::calibrate(options).c_str(), stdout);
      return 0;
    }
    if (options.explain > 0) {
      std::fputs(simtool::explain(options).c_str(), stdout);
      return 0;
    }
    if (!options.chakra.empty()) {
      std::fputs(simtool::chakraStudy(options).c_str(), stdout);
      return 0;
    }
    if (!options.workload.empty()) {
      std::fputs(simtool::simulateWorkload(simtool::parseWorkload(options.workload), options.variants.at(0).topology,
                                           options.instances, options.engine)
                     .c_str(),
                 stdout);
      return 0;
    }
    std::vector<std::string> skipped;
    const std::vector<simtool::Row> rows = simtool::sweep(options, skipped);
    const std::string text = simtool::formatRows(options, rows);
    if (options.out.empty()) {
      std::fputs(text.c_str(), stdout);
    } else {
      std::ofstream out(options.out);
      if (!(out << text)) throwError(trncclSystemError, "--out: cannot write '" + options.out + "'");
    }
    if (!options.plot.empty()) simtool::plot(rows, options.plot);
    if (!options.links.empty()) simtool::writeLinks(rows, options.links);
    for (const std::string& why : skipped) std::fprintf(stderr, "trnccl-sim: left out %s\n", why.c_str());
    return skipped.empty() ? 0 : 1;
  } catch (const simtool::UsageError& e) {
    std::fprintf(stderr, "trnccl-sim: %s\n%s\n", e.what(), simtool::usageText().c_str());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "trnccl-sim: %s\n", e.what());
    return e.code() == trncclInvalidArgument ? 2 : 1;
  }
}
