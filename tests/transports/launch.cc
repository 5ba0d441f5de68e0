#include "tests/transports/launch.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <thread>

#include "base/error.h"

namespace trnccl::test {
namespace {

struct LaunchArea {
  OobArea oob;
  char errors[kMaxRanks][2048];
};

std::string describeException() {
  try {
    throw;
  } catch (const Error& e) {
    return "trnccl::Error(" + std::to_string(e.code()) + "): " + e.what();
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

std::string runBody(const RankBody& body, int rank, TestOutOfBand& oob) {
  try {
    body(rank, oob);
    return {};
  } catch (...) {
    std::string error = describeException();
    return error.empty() ? "exception without a message" : error;
  }
}

std::vector<RankResult> launchThreads(int nranks, const RankBody& body, LaunchArea& area) {
  std::vector<RankResult> results(static_cast<size_t>(nranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < nranks; ++r) {
    threads.emplace_back([&, r] {
      TestOutOfBand oob(area.oob, r, nranks);
      results[static_cast<size_t>(r)].error = runBody(body, r, oob);
    });
  }
  for (std::thread& t : threads) t.join();
  return results;
}

std::vector<RankResult> launchProcesses(int nranks, const RankBody& body, LaunchArea& area,
                                        std::chrono::seconds timeout) {
  std::fflush(nullptr);  // children must not flush the parent's buffered output again
  std::vector<pid_t> pids;
  for (int r = 0; r < nranks; ++r) {
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      TestOutOfBand oob(area.oob, r, nranks);
      const std::string error = runBody(body, r, oob);
      std::strncpy(area.errors[r], error.c_str(), sizeof area.errors[r] - 1);
      _exit(error.empty() ? 0 : 1);
    }
    pids.push_back(pid);
  }
  std::vector<RankResult> results(static_cast<size_t>(nranks));
  std::vector<bool> running(static_cast<size_t>(nranks), true);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (int left = nranks; left > 0;) {
    for (int r = 0; r < nranks; ++r) {
      int status = 0;
      if (!running[r] || waitpid(pids[r], &status, WNOHANG) != pids[r]) continue;
      running[r] = false;
      --left;
      RankResult& result = results[static_cast<size_t>(r)];
      result.error = area.errors[r];
      if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
      if (WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
      // As a bootstrap sees a dead peer's socket close.
      if (result.signal != 0) area.oob.abandonedRank.store(r);
    }
    if (left > 0 && std::chrono::steady_clock::now() > deadline) {
      for (int r = 0; r < nranks; ++r) {
        if (!running[r]) continue;
        kill(pids[r], SIGKILL);
        waitpid(pids[r], nullptr, 0);
        running[r] = false;
        --left;
        results[static_cast<size_t>(r)].error = "timed out: killed by the launcher";
      }
    }
    usleep(1000);
  }
  return results;
}

}  // namespace

const char* launchName(Launch how) { return how == Launch::Threads ? "threads" : "processes"; }

std::string RankResult::describe() const {
  if (signal != 0) return "killed by signal " + std::to_string(signal);
  if (!error.empty()) return error;
  if (exitCode != 0) return "exited with status " + std::to_string(exitCode);
  return "ok";
}

std::vector<RankResult> launch(Launch how, int nranks, const RankBody& body, std::chrono::seconds timeout) {
  if (nranks > kMaxRanks) throw std::invalid_argument("too many ranks for the test launcher");
  void* memory = mmap(nullptr, sizeof(LaunchArea), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::runtime_error("mmap of the launch area failed");
  auto* area = new (memory) LaunchArea();
  std::vector<RankResult> results;
  try {
    results =
        how == Launch::Threads ? launchThreads(nranks, body, *area) : launchProcesses(nranks, body, *area, timeout);
  } catch (...) {
    munmap(memory, sizeof(LaunchArea));
    throw;
  }
  munmap(memory, sizeof(LaunchArea));
  return results;
}

void requireAllOk(const std::vector<RankResult>& results) {
  bool allOk = true;
  for (size_t r = 0; r < results.size(); ++r) {
    if (results[r].ok()) continue;
    allOk = false;
    UNSCOPED_INFO("rank " << r << ": " << results[r].describe());
  }
  REQUIRE(allOk);
}

}  // namespace trnccl::test
