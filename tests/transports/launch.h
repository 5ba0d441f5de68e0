// Runs the ranks of a transport test as threads of this process or as forked
// processes, each with a TestOutOfBand, and collects how each rank ended.
// Rank bodies must not use Catch2 assertions (threads and children cannot
// report them): they throw on failure, and the caller checks the results.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "tests/transports/test_oob.h"

namespace trnccl::test {

enum class Launch { Threads, Processes };
const char* launchName(Launch how);

struct RankResult {
  std::string error;  // what the body threw; empty if it returned
  int signal = 0;     // processes: the signal that ended it
  int exitCode = 0;   // processes: its exit status
  bool ok() const { return error.empty() && signal == 0 && exitCode == 0; }
  std::string describe() const;
};

using RankBody = std::function<void(int rank, TestOutOfBand& oob)>;

// Process ranks that outlive `timeout` are killed and reported.
std::vector<RankResult> launch(Launch how, int nranks, const RankBody& body,
                               std::chrono::seconds timeout = std::chrono::seconds(180));

// Catch2 check, on the test's thread: every rank returned normally.
void requireAllOk(const std::vector<RankResult>& results);

}  // namespace trnccl::test
