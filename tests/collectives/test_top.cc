// trnccl-top against a running job of 4 rank processes looping all-reduces
// (the worker's soak mode): a rank stopped with SIGSTOP is named as not
// answering and missing from the all-reduce the others wait in, the job
// finishes with right results after SIGCONT; a wrong secret is refused; an
// id whose job has ended fails at once. Split communicators are listed too.
#include <signal.h>
#include <stdlib.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "launcher.h"
#include "tests/command_run.h"
#include "unique_id_hex.h"

using namespace trnccl::test;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

constexpr int kRanks = 4;
constexpr int kStopped = 2;

Run top(const std::string& args) { return runCommand(std::string(TRNCCL_TOP_PATH) + " " + args); }

json parsed(const Run& run) {
  INFO(run.output);
  REQUIRE(run.status == 0);
  const json view = json::parse(run.output, nullptr, false);
  REQUIRE_FALSE(view.is_discarded());
  return view;
}

}  // namespace

TEST_CASE("trnccl-top: a stopped rank is named missing from the all-reduce the others wait in", "[top][process]") {
  std::string readyDir = (std::filesystem::temp_directory_path() / "trnccl-top-XXXXXX").string();
  REQUIRE(mkdtemp(readyDir.data()) != nullptr);
  trncclUniqueId id;
  REQUIRE(trncclGetUniqueId(&id) == trncclSuccess);
  const std::string hex = uniqueIdToHex(id);
  WorkerPlacement placement;
  placement.id = &id;
  WorkerJob job;
  std::atomic<bool> finished{false};
  // Rank 0 ends the loop after 8 s: long enough to ask twice meanwhile.
  std::thread runner([&] {
    job = runWorkers(TRNCCL_COLL_WORKER, kRanks, {"--mode", "soak", "--seconds", "8", "--ready-dir", readyDir},
                     std::chrono::seconds(120), placement);
    finished = true;
  });
  const std::string stoppedReady = readyDir + "/" + std::to_string(kStopped);
  auto ready = [&] {
    for (int r = 0; r < kRanks; ++r)
      if (!std::filesystem::exists(readyDir + "/" + std::to_string(r))) return false;
    return true;
  };
  while (!finished && !ready()) std::this_thread::sleep_for(20ms);
  REQUIRE_FALSE(finished);
  pid_t stopped = 0;
  std::ifstream(stoppedReady) >> stopped;
  REQUIRE(stopped > 0);

  // Running: every rank answers, in one communicator of 4.
  const json running = parsed(top("--json --once " + hex));
  CHECK(running["notAnswering"].empty());
  REQUIRE(running["comms"].size() == 1);
  CHECK(running["comms"][0]["ranks"].size() == kRanks);
  CHECK(running["comms"][0]["ranks"][kStopped]["pid"] == stopped);

  // A wrong secret: the same root, one byte of the secret changed (bytes
  // 16-31 of the id: IdLayout in core/bootstrap_protocol.h).
  std::string forged = hex;
  forged[33] = forged[33] == '0' ? '1' : '0';
  const Run refused = top("--once " + forged);
  INFO(refused.output);
  CHECK(refused.status == 1);
  CHECK(refused.output.find("wrong secret") != std::string::npos);

  REQUIRE(kill(stopped, SIGSTOP) == 0);
  std::this_thread::sleep_for(500ms);  // the others reach the all-reduce it misses
  const json first = parsed(top("--json --once --wait-ms 500 " + hex));
  const json second = parsed(top("--json --once --wait-ms 500 " + hex));
  const std::string text = top("--once --wait-ms 500 " + hex).output;
  REQUIRE(kill(stopped, SIGCONT) == 0);
  runner.join();
  std::filesystem::remove_all(readyDir);
  INFO(describeJob(job));
  CHECK(exitedWith(job, {0}));  // every rank went on, every result right

  INFO(first.dump(1));
  REQUIRE(first["notAnswering"].size() == 1);
  CHECK(first["notAnswering"][0]["rank"] == kStopped);
  CHECK(first["notAnswering"][0]["reason"] == "no answer within 500 ms");
  REQUIRE(first["comms"].size() == 1);
  const json& comm = first["comms"][0];
  CHECK(comm["ranks"].size() == kRanks - 1);
  CHECK(comm["notHeardFrom"] == json::array({kStopped}));
  const json& open = comm["oldestOpen"];
  REQUIRE(open.is_object());
  CHECK(open["collective"] == "allreduce");
  // Every rank finished all-reduce 0 before the stop (the ready files).
  CHECK(open["seq"].get<int>() >= 1);
  CHECK(open["missing"] == json::array({kStopped}));
  CHECK(open["missingHosts"] == json::array({"127.0.0.1"}));
  // The others are in it, and stay there while the rank is stopped.
  CHECK_FALSE(open["inIt"].empty());
  for (const json& row : comm["ranks"]) CHECK(row["lastStarted"]["seq"].get<int>() >= open["seq"].get<int>());
  CHECK(second["comms"][0]["oldestOpen"]["seq"] == open["seq"]);
  INFO(text);
  CHECK(text.find("rank 2 (127.0.0.1) NOT ANSWERING") != std::string::npos);
  CHECK(text.find("oldest open: allreduce #" + open["seq"].dump() + "; missing: rank 2 on 127.0.0.1") !=
        std::string::npos);

  // The job has ended: its root no longer listens (it ends with its last
  // rank; give its thread a moment), and trnccl-top says so at once.
  Run gone{};
  for (int attempt = 0; attempt < 100; ++attempt) {
    gone = top("--once --connect-timeout-ms 3000 " + hex);
    if (gone.status != 0) break;
    std::this_thread::sleep_for(50ms);
  }
  INFO(gone.output);
  CHECK(gone.status == 1);
  CHECK(gone.output.find("cannot reach the job's rendezvous root") != std::string::npos);
}

TEST_CASE("trnccl-top: a bad command line is refused naming the argument", "[top]") {
  const Run noId = top("--once");
  CHECK(noId.status == 2);
  CHECK(noId.output.find("missing the job's unique id") != std::string::npos);
  const Run shortId = top("--once abcd");
  CHECK(shortId.status == 2);
  CHECK(shortId.output.find("the unique id has 4 characters") != std::string::npos);
  const Run help = top("--help");
  CHECK(help.status == 0);
  CHECK(help.output.find("usage: trnccl-top") != std::string::npos);
}

TEST_CASE("trnccl-top: a job's split communicators are listed beside it, each with its ranks", "[top]") {
  trncclUniqueId id;
  REQUIRE(trncclGetUniqueId(&id) == trncclSuccess);
  std::vector<std::string> failures(kRanks);
  std::atomic<int> ready{0};
  std::atomic<bool> asked{false};
  std::vector<std::thread> ranks;
  for (int r = 0; r < kRanks; ++r) {
    ranks.emplace_back([&, r] {
      trncclComm_t comm = nullptr, half = nullptr;
      if (trncclCommInitRank(&comm, kRanks, id, r) != trncclSuccess ||
          trncclCommSplit(comm, r % 2, r, &half, nullptr) != trncclSuccess)
        failures[r] = trncclGetLastError(nullptr);
      ++ready;
      while (!asked) std::this_thread::sleep_for(10ms);
      if (half) trncclCommDestroy(half);
      if (comm) trncclCommDestroy(comm);
    });
  }
  while (ready < kRanks) std::this_thread::sleep_for(10ms);
  const Run run = top("--json --once " + uniqueIdToHex(id));
  asked = true;
  for (std::thread& rank : ranks) rank.join();
  for (const std::string& failure : failures) CHECK(failure.empty());
  const json view = parsed(run);
  INFO(view.dump(1));
  CHECK(view["notAnswering"].empty());
  // The job's communicator of 4 and the two halves of 2 (even and odd ranks).
  REQUIRE(view["comms"].size() == 3);
  std::multiset<int> sizes;
  for (const json& comm : view["comms"]) {
    sizes.insert(comm["nranks"].get<int>());
    CHECK(comm["ranks"].size() == comm["nranks"].get<size_t>());
    CHECK(comm["notHeardFrom"].empty());
  }
  CHECK(sizes == std::multiset<int>{2, 2, 4});
}
