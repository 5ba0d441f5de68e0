#include "trace_support.h"

#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "thread_ranks.h"

namespace trnccl::test {

TempDir::TempDir() {
  char pattern[] = "/tmp/trnccl-trace-test-XXXXXX";
  if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> TempDir::files() const {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

nlohmann::json readJson(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  return nlohmann::json::parse(in);
}

nlohmann::json dumpOf(const std::string& dir, int rank) {
  const std::string suffix = "-rank" + std::to_string(rank) + ".json";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("trnccl-", 0) == 0 && name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return readJson(e.path().string());
  }
  return nullptr;
}

bool waitForDumps(const std::string& dir, size_t count, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    size_t dumps = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") ++dumps;
    if (dumps >= count) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::vector<int> runThenAbort(int nranks, const std::function<int(trncclComm_t comm, int rank)>& body) {
  std::vector<trncclComm_t> comms(static_cast<size_t>(nranks), nullptr);
  if (trncclCommInitAll(comms.data(), nranks, nullptr) != trncclSuccess) return {};
  std::vector<int> results =
      trnccl::test::inThreads(nranks, [&](int r) { return body(comms[static_cast<size_t>(r)], r); });
  for (trncclComm_t c : comms) trncclCommAbort(c);
  return results;
}

ToolRun runTraceTool(const std::string& arguments) {
  ToolRun run;
  FILE* pipe = popen((std::string(TRNCCL_TRACE_TOOL) + " " + arguments + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe)) run.output.append(buffer, n);
  const int status = pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace trnccl::test
