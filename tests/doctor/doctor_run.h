// Running trnccl-doctor in the tests, and reading its report.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tests/command_run.h"

namespace trnccl::test {

using trnccl::test::Run;

inline Run run(const std::string& command) { return trnccl::test::runCommand(command); }

// The doctor with `environment` ("NAME=value ..."), no other TRNCCL_* variable
// of the test's own except TRNCCL_CHECK.
inline Run doctor(const std::string& environment, const std::string& args) {
  return run("env -u TRNCCL_SOCKET_IFNAME -u TRNCCL_TOPO -u TRNCCL_OFI_PROVIDER -u TRNCCL_TRANSPORT " + environment +
             " '" TRNCCL_DOCTOR_PATH "' " + args);
}

inline const std::string kMpirun = std::string("'") + TRNCCL_MPIEXEC + "' --allow-run-as-root --oversubscribe";
inline const char* const kChecks[] = {"settings", "shm", "cma", "interface", "ofi", "topology", "consistency"};

// The verdict on the report's line for `check` (text output): "ok: ..." or
// "problem: ...".
inline std::string lineOf(const std::string& output, const std::string& check) {
  const size_t start = output.find("\n" + check + ":");
  if (start == std::string::npos) return "";
  const size_t verdict = output.find_first_not_of(' ', start + check.size() + 2);
  return output.substr(verdict, output.find('\n', verdict) - verdict);
}

inline void checkAllOk(const Run& r, int nranks) {
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.starts_with("trnccl-doctor: " + std::to_string(nranks) + (nranks == 1 ? " rank" : " ranks")));
  for (const char* check : kChecks) CHECK(lineOf(r.output, check).starts_with("ok: "));
  CHECK(r.output.find("problem") == std::string::npos);
}

// A problem on `check` that names `what` and fixes it with `fix`; status 1.
inline void checkProblem(const Run& r, const std::string& check, const std::string& what, const std::string& fix) {
  INFO(r.output);
  CHECK(r.status == 1);
  const std::string line = lineOf(r.output, check);
  CHECK(line.starts_with("problem: "));
  CHECK(line.find(what) != std::string::npos);
  CHECK(line.find(" fix: " + fix) != std::string::npos);
}

inline std::string fileWith(const std::string& text) {
  char path[] = "/tmp/trnccl-doctor-test-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

// A rank's /dev/shm segment by docs/memory.md: a 4 KiB head, and per peer a
// FIFO control line pair (128 B), 8 slots of 64 KiB + 64 B and a 512-byte
// announcement table.
inline std::string segmentMiB(int localRanks) {
  const double bytes = 4096 + (localRanks - 1) * (128 + 8 * (65536 + 64) + 512);
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1 << 20));
  return text;
}

}  // namespace trnccl::test
