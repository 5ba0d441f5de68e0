#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>
#include <vector>

#include "launch.h"
#include "logic/usage_error.h"
#include "rank_bench.h"
#include "thread_sync.h"
#include "trnccl_error.h"

namespace trnccl::perf {

namespace {

// A failing rank leaves the others blocked in a collective that can no longer
// complete, so the whole process ends at once.
[[noreturn]] void fail_process(int rank, const std::exception& error) {
  std::fprintf(stderr, "trnccl-perf: rank %d: %s\n", rank, error.what());
  std::fflush(stderr);
  std::_Exit(3);
}

}  // namespace

int run_with_threads(const Options& options) {
  const int nranks = options.threads;
  try {
    check_launch(options, nranks, false);
  } catch (const UsageError& error) {
    return usage_failure(error.what());
  }
  try {
    std::vector<trncclComm_t> comms(static_cast<size_t>(nranks));
    check_trnccl(trncclCommInitAll(comms.data(), nranks, nullptr), "trncclCommInitAll", nullptr);
    Reporter reporter(options, make_run_info(nranks, "threads", comms[0]));
    reporter.begin();
    ThreadTeam team(nranks);
    uint64_t wrong = 0;
    std::vector<std::thread> threads;
    for (int rank = 0; rank < nranks; ++rank) {
      threads.emplace_back([&, rank] {
        try {
          ThreadSync sync(team, rank);
          const uint64_t rank_wrong =
              run_rank({rank, nranks, comms[rank], sync, options, rank == 0 ? &reporter : nullptr});
          if (rank == 0) wrong = rank_wrong;
          check_trnccl(trncclCommDestroy(comms[rank]), "trncclCommDestroy", nullptr);
        } catch (const std::exception& error) {
          fail_process(rank, error);
        }
      });
    }
    for (std::thread& t : threads) t.join();
    reporter.finish();
    return wrong == 0 ? 0 : 1;
  } catch (const std::exception& error) {
    fail_process(0, error);
  }
}

}  // namespace trnccl::perf
