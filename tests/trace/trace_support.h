// Helpers of the hang-diagnostics tests: a scratch directory, the dumps in
// it, and jobs of thread ranks that end by aborting every communicator (each
// abort dumps that rank's flight recorder).
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trnccl/trnccl.h"

namespace trnccl::test {

// A fresh directory under /tmp, removed with everything in it at the end.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::vector<std::string> files() const;  // names, sorted

 private:
  std::string path_;
};

nlohmann::json readJson(const std::string& path);

// The dump of `rank` in `dir` (the only trnccl-*-rank<R>.json); null if none.
nlohmann::json dumpOf(const std::string& dir, int rank);

// Waits (sleeping) until `dir` holds `count` dumps or `limit` passes.
bool waitForDumps(const std::string& dir, size_t count, std::chrono::milliseconds limit);

// Creates nranks communicators with trncclCommInitAll (from the current
// environment), runs body(comm, rank) on one thread each, then aborts every
// communicator. Returns body's results (empty if the init failed).
std::vector<int> runThenAbort(int nranks, const std::function<int(trncclComm_t comm, int rank)>& body);

// `trnccl-trace analyze DIR`'s output and exit status, run as a program.
struct ToolRun {
  int status = -1;
  std::string output;
};
ToolRun runTraceTool(const std::string& arguments);

}  // namespace trnccl::test
