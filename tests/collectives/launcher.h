// Ranks as processes: starts a worker executable once per rank with
// posix_spawn, handing every copy the same trncclUniqueId (made here, by
// trncclGetUniqueId, as rank 0's launcher does in NCCL jobs) in hex.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "trnccl/trnccl.h"

namespace trnccl::test {

struct WorkerExit {
  bool exited = false;  // exited normally, with `code`
  int code = -1;
  int signal = 0;        // killed by this signal
  bool overran = false;  // still running at the limit: killed by the launcher
};

struct WorkerJob {
  std::string error;              // non-empty if the job could not be started
  std::vector<WorkerExit> exits;  // per rank
};

// How to start the ranks when not as plain children of this process.
struct WorkerPlacement {
  // Per rank, a command that runs the worker (e.g. {"ip", "netns", "exec",
  // "ns1"}); empty: the worker itself.
  std::vector<std::vector<std::string>> prefixOf;
  // The job's id, made elsewhere (null: made here by trncclGetUniqueId).
  const trncclUniqueId* id = nullptr;
};

// Runs `worker --id HEX --nranks N --rank R args...` for every rank, with this
// process's environment, and waits for all of them, at most `limit`.
WorkerJob runWorkers(const std::string& worker, int nranks, const std::vector<std::string>& args,
                     std::chrono::seconds limit, const WorkerPlacement& placement = {});

// True if the job started and rank r exited with codes[r] (every rank with
// codes[0] if codes has one entry).
bool exitedWith(const WorkerJob& job, const std::vector<int>& codes);

// "rank 0: exit 0, rank 1: signal 9 (overran)" for failure messages.
std::string describeJob(const WorkerJob& job);

}  // namespace trnccl::test
