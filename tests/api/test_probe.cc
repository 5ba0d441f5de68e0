// trncclProbe, the receive from any source: rank 0 learns who sent to it,
// over shared memory and every network transport, and receives each sender's
// messages in that sender's order, eager and rendezvous sizes alike.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "thread_ranks.h"
#include "two_instances.h"

using namespace trnccl::test;

namespace {

constexpr int kRanks = kTwoInstanceRanks;
// Per sender: a small message (eager on every transport), then a large one
// (rendezvous), then a small one again.
const std::vector<size_t> kCounts = {16, size_t(1) << 18, 3};

float valueOf(int sender, int message, size_t i) { return float(sender * 1000 + message * 100) + float(i % 97); }

bool barrier(trncclComm_t comm) {
  int token = 1;
  return trncclAllReduce(&token, &token, 1, trncclInt32, trncclSum, comm, nullptr) == trncclSuccess && token == kRanks;
}

int sender(trncclComm_t comm, int rank, FailureLog& log) {
  if (!barrier(comm)) return log.fail(rank, "the barrier");
  trncclStream_t stream = nullptr;
  if (trncclStreamCreate(&stream) != trncclSuccess) return log.fail(rank, "trncclStreamCreate");
  std::vector<std::vector<float>> messages;
  for (size_t m = 0; m < kCounts.size(); ++m) {
    std::vector<float>& data = messages.emplace_back(kCounts[m]);
    for (size_t i = 0; i < data.size(); ++i) data[i] = valueOf(rank, int(m), i);
    log.expect(rank, "trncclSend", trncclSend(data.data(), data.size(), trncclFloat32, 0, comm, stream), trncclSuccess,
               comm);
  }
  log.expect(rank, "trncclStreamSynchronize", trncclStreamSynchronize(stream), trncclSuccess, comm);
  trncclStreamDestroy(stream);
  return 0;
}

int receiver(trncclComm_t comm, FailureLog& log) {
  int source = -2;
  // No rank can send before rank 0 joins the barrier.
  log.expect(0, "the first trncclProbe", trncclProbe(&source, comm), trncclSuccess, comm);
  if (source != -1) log.fail(0, "before any send, trncclProbe found rank " + std::to_string(source));
  if (!barrier(comm)) return log.fail(0, "the barrier");
  std::vector<size_t> received(kRanks, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (size_t got = 0; got < (kRanks - 1) * kCounts.size();) {
    if (trncclProbe(&source, comm) != trncclSuccess) return log.fail(0, trncclGetLastError(comm));
    if (source == -1) {
      if (std::chrono::steady_clock::now() > deadline)
        return log.fail(0, "trncclProbe found no sender within 60 s, with " + std::to_string(got) + " received");
      std::this_thread::yield();
      continue;
    }
    if (source <= 0 || source >= kRanks || received[source] == kCounts.size())
      return log.fail(0, "trncclProbe found rank " + std::to_string(source) + ", which has nothing more to send");
    const size_t m = received[source]++;
    std::vector<float> data(kCounts[m], -1.0f);
    if (trncclRecv(data.data(), data.size(), trncclFloat32, source, comm, nullptr) != trncclSuccess)
      return log.fail(0, trncclGetLastError(comm));
    for (size_t i = 0; i < data.size(); ++i)
      if (data[i] != valueOf(source, int(m), i))
        return log.fail(0, "message " + std::to_string(m) + " of rank " + std::to_string(source) + " has " +
                               std::to_string(data[i]) + " at " + std::to_string(i));
    ++got;
  }
  if (trncclProbe(&source, comm) != trncclSuccess || source != -1)
    log.fail(0, "after every message, trncclProbe found rank " + std::to_string(source));
  return 0;
}

}  // namespace

TEST_CASE("probe: rank 0 receives every sender's messages from any source, in each sender's order",
          "[probe][transports]") {
  const TwoInstances net = GENERATE(from_range(twoInstanceNetworks()));
  CAPTURE(net.name);
  ScopedTwoInstances placed(net);
  FailureLog log;
  const ThreadJob job = runOnThreads(
      kRanks, [&](trncclComm_t comm, int rank) { return rank == 0 ? receiver(comm, log) : sender(comm, rank, log); });
  INFO(job.initError << log.text());
  CHECK(job.init == trncclSuccess);
  CHECK(log.size() == 0);
}

TEST_CASE("probe: bad arguments and a probe inside a group are refused, naming what is wrong", "[probe]") {
  FailureLog log;
  const ThreadJob job = runOnThreads(2, [&](trncclComm_t comm, int rank) {
    int source = 0;
    log.expect(rank, "a NULL source", trncclProbe(nullptr, comm), trncclInvalidArgument, comm);
    if (std::string(trncclGetLastError(comm)).find("source") == std::string::npos)
      log.fail(rank, std::string("source not named: ") + trncclGetLastError(comm));
    log.expect(rank, "a NULL comm", trncclProbe(&source, nullptr), trncclInvalidArgument, nullptr);
    trncclGroupStart();
    log.expect(rank, "a probe inside a group", trncclProbe(&source, comm), trncclInvalidUsage, comm);
    trncclGroupEnd();
    return 0;
  });
  INFO(log.text());
  CHECK(job.init == trncclSuccess);
  CHECK(log.size() == 0);
}
