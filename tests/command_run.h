// Runs a shell command as a user would (tools' tests): its exit status and
// everything it printed, stdout and stderr together.
#pragma once

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

namespace trnccl::test {

struct Run {
  int status;          // the exit status; -1 when killed by a signal
  std::string output;  // stdout and stderr
};

inline Run runCommand(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  Run run{0, ""};
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) run.output.append(buf, n);
  const int wait = pclose(pipe);
  run.status = WIFEXITED(wait) ? WEXITSTATUS(wait) : -1;
  return run;
}

}  // namespace trnccl::test
