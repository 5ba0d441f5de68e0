// runtime::Stream: every operation queued runs, however its enqueue falls
// against the progress thread's backoff.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/stream.h"

using namespace std::chrono;

namespace {

// Queues one operation at a time on `stream`, each after a pause that lets the
// progress thread reach the sleeping stage of its backoff, at varied moments
// against it; returns what went wrong, or "" if every operation ran.
std::string queueOneAtATime(trnccl::runtime::Stream& stream, steady_clock::time_point end, int& queued) {
  std::atomic<int> ran{0};
  while (steady_clock::now() < end) {
    std::this_thread::sleep_for(microseconds(50 + 37 * (queued % 11)));
    stream.enqueue([&ran] { ran.fetch_add(1); });
    ++queued;
    const auto deadline = steady_clock::now() + seconds(5);
    while (ran.load() != queued && steady_clock::now() < deadline) std::this_thread::sleep_for(microseconds(20));
    if (ran.load() != queued)
      return "operation " + std::to_string(queued - 1) + " never ran (" + std::to_string(ran.load()) + " of " +
             std::to_string(queued) + " did)";
  }
  return "";
}

}  // namespace

TEST_CASE("stream: an operation queued while the progress thread goes to sleep runs", "[stream]") {
  // The window where an operation could be lost is short: several streams at
  // once, on oversubscribed cores, give it many chances (before the fix, every
  // run lost an operation on some stream, about one in 5000).
  const int streams = 8;
  std::vector<std::unique_ptr<trnccl::runtime::Stream>> all;
  std::vector<std::thread> drivers;
  std::vector<std::string> failures(streams);
  std::vector<int> queued(streams, 0);
  const auto end = steady_clock::now() + seconds(3);
  // Every stream exists before any driver starts: a driver reading `all`
  // while push_back reallocates it read freed memory (a SIGSEGV in CI).
  for (int i = 0; i < streams; ++i) all.push_back(std::make_unique<trnccl::runtime::Stream>());
  for (int i = 0; i < streams; ++i)
    drivers.emplace_back([&, i] { failures[i] = queueOneAtATime(*all[i], end, queued[i]); });
  for (auto& t : drivers) t.join();
  for (int i = 0; i < streams; ++i) {
    INFO("stream " << i << ": " << failures[i]);
    CHECK(failures[i].empty());
    CHECK(queued[i] > 100);
  }
}
