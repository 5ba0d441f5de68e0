// trnccl-doctor's command line.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "cli/usage_error.h"

namespace trnccl::doctor {

// A bad command line: main prints it with the usage and exits with status 2.
using cli::UsageError;

struct Options {
  int localRanks = 1;  // -n: ranks to start on this host (without mpirun)
  // --rendezvous DIR --rank R --nranks N: one rank of a job started by hand
  // (or any launcher), exchanging through files in DIR.
  std::string rendezvous;
  int rank = -1;
  int nranks = 0;
  bool json = false;
  bool help = false;
  bool settings = false;                     // --settings: print every TRNCCL_* setting and exit
  bool transports = false;                   // --transports: list them and exit
  std::chrono::milliseconds timeout{10000};  // reachability: each connection
  // Where Yama's ptrace scope is read (tests point it at a file of theirs).
  std::string ptraceScopeFile = "/proc/sys/kernel/yama/ptrace_scope";
};

Options parseOptions(const std::vector<std::string>& args);
std::string usageText();

}  // namespace trnccl::doctor
