// trnccl-trace: reads what trnccl's hang diagnostics write.
//   trnccl-trace analyze DIR            one line naming why the job hangs
//   trnccl-trace merge -o OUT IN...     per-rank TRNCCL_TRACE files into one
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "analysis.h"
#include "cli/command_line.h"
#include "merge.h"

namespace {

int usage(const char* problem) {
  std::fprintf(stderr,
               "trnccl-trace: %s\n"
               "usage: trnccl-trace analyze DIR          (DIR: a job's TRNCCL_TRACE_DIR)\n"
               "       trnccl-trace merge -o OUT IN...   (IN: TRNCCL_TRACE files of the ranks)\n",
               problem);
  return 2;
}

int analyzeCommand(const std::string& dir) {
  try {
    const trnccl::trace::Diagnosis d = trnccl::trace::analyze(trnccl::trace::readDumps(dir));
    std::printf("%s\n", d.line.c_str());
    return 0;
  } catch (const trnccl::trace::DumpError& e) {
    std::fprintf(stderr, "trnccl-trace analyze: %s\n", e.what());
    return 1;
  }
}

int mergeCommand(const std::string& out, const std::vector<std::string>& inputs) {
  try {
    const nlohmann::json merged = trnccl::trace::mergeTraces(inputs);
    std::ofstream file(out);
    file << merged.dump() << "\n";
    if (!file) throw std::runtime_error(out + ": cannot be written");
    std::printf("%s: %zu events from %zu files\n", out.c_str(), merged["traceEvents"].size(), inputs.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trnccl-trace merge: %s\n", e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app;
  trnccl::cli::prepare(app);
  std::string dir, out;
  std::vector<std::string> inputs;
  CLI::App* analyze = app.add_subcommand("analyze");
  analyze->add_option("DIR", dir)->required();
  CLI::App* merge = app.add_subcommand("merge");
  trnccl::cli::addText(*merge, "-o", out)->required();
  merge->add_option("IN", inputs)->required();
  try {
    trnccl::cli::parse(app, std::vector<std::string>(argv + 1, argv + argc), "unknown argument");
  } catch (const trnccl::cli::UsageError& e) {
    return usage(e.what());
  }
  if (analyze->parsed()) return analyzeCommand(dir);
  if (merge->parsed()) return mergeCommand(out, inputs);
  return usage("no command");
}
