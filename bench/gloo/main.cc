// trnccl-gloo-allreduce: Gloo's all-reduce over TCP, the peer that trnccl's
// tcp transport is measured against (README, "Performance"). Forks the ranks,
// which meet through a Gloo file store in a fresh temporary directory.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "gloo_rank.h"
#include "logic/usage_error.h"
#include "options.h"

using namespace trnccl::gloo_bench;

int main(int argc, char** argv) {
  Options options;
  try {
    options = parse_args(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const trnccl::perf::UsageError& error) {
    std::fprintf(stderr, "trnccl-gloo-allreduce: %s\n%s", error.what(), usage_text().c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  std::string store_dir = (std::filesystem::temp_directory_path() / "trnccl-gloo-XXXXXX").string();
  if (mkdtemp(store_dir.data()) == nullptr) {
    std::fprintf(stderr, "trnccl-gloo-allreduce: mkdtemp %s: %s\n", store_dir.c_str(), std::strerror(errno));
    return 1;
  }
  std::fflush(nullptr);  // the children must not write the parent's buffered output again
  std::vector<pid_t> children;
  for (int rank = 0; rank < options.ranks; ++rank) {
    const pid_t pid = fork();
    if (pid < 0) {
      std::perror("trnccl-gloo-allreduce: fork");
      break;
    }
    if (pid == 0) {
      int status = 1;
      try {
        status = run_rank(options, rank, store_dir) == 0 ? 0 : 3;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "trnccl-gloo-allreduce: rank %d: %s\n", rank, e.what());
      }
      std::fflush(nullptr);
      _exit(status);
    }
    children.push_back(pid);
  }
  int failures = static_cast<int>(options.ranks - children.size());
  for (const pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::filesystem::remove_all(store_dir);
  if (failures > 0) std::fprintf(stderr, "trnccl-gloo-allreduce: %d rank(s) failed or computed wrong sums\n", failures);
  return failures > 0 ? 1 : 0;
}
