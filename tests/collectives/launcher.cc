#include "launcher.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "trnccl/trnccl.h"
#include "unique_id_hex.h"

extern char** environ;

namespace trnccl::test {

WorkerJob runWorkers(const std::string& worker, int nranks, const std::vector<std::string>& args,
                     std::chrono::seconds limit, const WorkerPlacement& placement) {
  WorkerJob job;
  trncclUniqueId id;
  if (placement.id) {
    id = *placement.id;
  } else if (trncclGetUniqueId(&id) != trncclSuccess) {
    job.error = std::string("trncclGetUniqueId failed: ") + trncclGetLastError(nullptr);
    return job;
  }
  const std::string hex = uniqueIdToHex(id);
  std::vector<pid_t> pids;
  job.exits.resize(static_cast<size_t>(nranks));
  for (int r = 0; r < nranks; ++r) {
    std::vector<std::string> argv;
    if (static_cast<size_t>(r) < placement.prefixOf.size()) argv = placement.prefixOf[r];
    for (const std::string& a : {worker, std::string("--id"), hex, std::string("--nranks"), std::to_string(nranks),
                                 std::string("--rank"), std::to_string(r)})
      argv.push_back(a);
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    pid_t pid = -1;
    const int err = posix_spawnp(&pid, cargv[0], nullptr, nullptr, cargv.data(), environ);
    if (err != 0) {
      job.error = std::string("posix_spawnp(") + cargv[0] + ") failed: " + std::strerror(err);
      break;
    }
    pids.push_back(pid);
  }
  // Wait for every started worker; past the limit, kill the ones left.
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::vector<bool> done(pids.size(), false);
  size_t left = pids.size();
  bool killed = false;
  while (left > 0) {
    for (size_t r = 0; r < pids.size(); ++r) {
      if (done[r]) continue;
      int status = 0;
      const pid_t got = waitpid(pids[r], &status, WNOHANG);
      if (got != pids[r]) continue;
      done[r] = true, --left;
      WorkerExit& e = job.exits[r];
      e.overran = killed;
      if (WIFEXITED(status))
        e.exited = true, e.code = WEXITSTATUS(status);
      else if (WIFSIGNALED(status))
        e.signal = WTERMSIG(status);
    }
    if (left == 0) break;
    if (!killed && std::chrono::steady_clock::now() > deadline) {
      for (size_t r = 0; r < pids.size(); ++r)
        if (!done[r]) kill(pids[r], SIGKILL);
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return job;
}

bool exitedWith(const WorkerJob& job, const std::vector<int>& codes) {
  if (!job.error.empty()) return false;
  for (size_t r = 0; r < job.exits.size(); ++r) {
    const int want = codes.size() == 1 ? codes[0] : codes.at(r);
    if (!job.exits[r].exited || job.exits[r].code != want) return false;
  }
  return true;
}

std::string describeJob(const WorkerJob& job) {
  std::string out = job.error;
  for (size_t r = 0; r < job.exits.size(); ++r) {
    const WorkerExit& e = job.exits[r];
    out += (out.empty() ? "rank " : ", rank ") + std::to_string(r) + ": ";
    out += e.exited ? "exit " + std::to_string(e.code) : "signal " + std::to_string(e.signal);
    if (e.overran) out += " (overran the time limit)";
  }
  return out;
}

}  // namespace trnccl::test
