// trnccl-sim run as a user runs it, for the command's tests: its path, files
// it writes, and the times it prints.
#pragma once

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/command_run.h"

namespace trnccl::test {

inline const std::string kSim = TRNCCL_SIM_PATH;

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string tempPath(const std::string& name) {
  return "/tmp/trnccl-sim-test-" + std::to_string(getpid()) + "-" + name;
}

// The data lines of `text`: those not empty and not starting with '#'.
inline std::vector<std::string> dataLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  return lines;
}

// The rows trnccl-sim predicts for `args`, from its JSON output.
inline nlohmann::json predictedRows(const std::string& args) {
  const Run run = runCommand(kSim + " --format json " + args);
  INFO(args << "\n" << run.output);
  REQUIRE(run.status == 0);
  return nlohmann::json::parse(run.output).at("rows");
}

}  // namespace trnccl::test
