// A hang across rank processes: one rank stopped (SIGSTOP) mid-all-reduce, so
// it can neither finish nor dump; the others time out and dump, and
// `trnccl-trace analyze` (the program) names who waits for the stopped rank,
// at which step.
#include <signal.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <thread>

#include "launcher.h"
#include "tests/support/scoped_env.h"
#include "trace_support.h"

using trnccl::test::ScopedEnv;
using namespace trnccl::test;

TEST_CASE("hang: a rank process stopped mid-collective is named by trnccl-trace analyze", "[trace][hang][processes]") {
  TempDir dir;
  ScopedEnv traceDir("TRNCCL_TRACE_DIR", dir.path().c_str());
  const int victim = 1;
  // The worker's die mode: all-reduces; the victim stops 100 ms into its 3rd
  // (call #2), the others time out naming it and abort; its reaper kills it.
  const trnccl::test::WorkerJob job =
      trnccl::test::runWorkers(TRNCCL_COLL_WORKER, 3,
                               {"--mode", "die", "--victim", std::to_string(victim), "--die-before", "3",
                                "--timeout-ms", "1500", "--stop-during"},
                               std::chrono::seconds(60));
  INFO(trnccl::test::describeJob(job));
  REQUIRE(job.error.empty());
  CHECK(job.exits[victim].signal == SIGKILL);
  // The survivors ended by themselves (the worker's own checks expect every
  // survivor to time out, which holds for 2 ranks: with 3, the first to time
  // out and abort may fail the other with a remote error first).
  for (int survivor : {0, 2}) CHECK(job.exits[survivor].exited);

  const std::vector<std::string> files = dir.files();
  INFO("dumps: " << files.size());
  REQUIRE(files.size() == 2);  // the stopped rank left none
  for (int rank : {0, 2}) {
    const nlohmann::json dump = dumpOf(dir.path(), rank);
    REQUIRE(dump["ops"].size() == 3);
    CHECK(dump["ops"][2]["seq"] == 2);
    CHECK(dump["ops"][2]["state"] == "failed");
  }
  const ToolRun run = runTraceTool("analyze " + dir.path());
  INFO(run.output);
  CHECK(run.status == 0);
  // Someone waits on rank 1 at a step of allreduce #2, and rank 1 is the one
  // that left no dump.
  CHECK(std::regex_search(run.output, std::regex("allreduce #2 \\(131072 x float sum, [a-z_0-9]+\\) hangs: rank [02] "
                                                 "waits (to receive from rank 1|for rank 1 to receive) at step [0-9]+; "
                                                 "rank 1 left no dump")));
  CHECK(std::count(run.output.begin(), run.output.end(), '\n') == 1);
}

TEST_CASE("hang: SIGUSR1 sent to a hung job's rank processes makes each dump, and analyze names the missing rank",
          "[trace][hang][processes][signal]") {
  TempDir dir;
  ScopedEnv traceDir("TRNCCL_TRACE_DIR", dir.path().c_str());
  ScopedEnv timeout("TRNCCL_TIMEOUT_MS", "120000");  // far beyond this test: the job stays hung
  const int nranks = 3, skipRank = 1;
  trnccl::test::WorkerJob job;
  // Rank 1 makes 2 all-reduces of 3 and waits; ranks 0 and 2 block in #2.
  std::thread run([&] {
    job = trnccl::test::runWorkers(TRNCCL_TRACE_HANG_WORKER, nranks,
                                   {"--calls", "3", "--skip-rank", std::to_string(skipRank), "--pid-dir", dir.path()},
                                   std::chrono::seconds(60));
  });
  std::vector<pid_t> pids;
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (pids.size() < static_cast<size_t>(nranks) && std::chrono::steady_clock::now() < limit) {
    pids.clear();
    for (int r = 0; r < nranks; ++r)
      if (std::ifstream in(dir.path() + "/pid-" + std::to_string(r)); in) {
        pid_t pid = 0;
        if (in >> pid) pids.push_back(pid);
      }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  bool dumped = false;
  ToolRun analysis;
  if (pids.size() == static_cast<size_t>(nranks)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // ranks 0 and 2 are inside #2 by now
    for (pid_t pid : pids) kill(pid, SIGUSR1);
    dumped = waitForDumps(dir.path(), nranks, std::chrono::seconds(20));
    analysis = runTraceTool("analyze " + dir.path());
  }
  for (pid_t pid : pids) kill(pid, SIGKILL);
  run.join();
  INFO(trnccl::test::describeJob(job));
  REQUIRE(pids.size() == static_cast<size_t>(nranks));
  REQUIRE(dumped);
  for (int r = 0; r < nranks; ++r) CHECK(dumpOf(dir.path(), r)["reason"] == "signal");
  INFO(analysis.output);
  CHECK(analysis.status == 0);
  CHECK_THAT(analysis.output, Catch::StartsWith("comm ") && Catch::Contains("allreduce #2 (4096 x float sum") &&
                                  Catch::Contains("rank 1 never entered it (last collective: #1); ranks 0, 2 are "
                                                  "in it\n"));
}

TEST_CASE("trnccl-trace: usage errors and unreadable directories fail with a message", "[trace][tool]") {
  CHECK(runTraceTool("").status == 2);
  CHECK(runTraceTool("frobnicate").status == 2);
  CHECK(runTraceTool("merge out.json").status == 2);
  TempDir empty;
  const ToolRun run = runTraceTool("analyze " + empty.path());
  CHECK(run.status == 1);
  CHECK_THAT(run.output, Catch::Contains("no flight-recorder dumps"));
}
