// Streams (calls that return at once and complete at synchronize, in order)
// and groups (fused sends/receives to several peers, all ranks driven from
// one thread).
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

#include "checks.h"
#include "thread_ranks.h"

using namespace trnccl::test;

namespace {

// Waits (bounded) until flag becomes true.
bool waitFor(const std::atomic<bool>& flag, std::chrono::seconds limit = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// The value rank r sends to peer p at element i in the exchanges below.
int32_t exchanged(int r, int p, size_t i) { return static_cast<int32_t>(r * 1000003 + p * 7919 + static_cast<int>(i)); }

}  // namespace

TEST_CASE("streams: a call on a stream returns at once and completes at trncclStreamSynchronize", "[streams]") {
  std::atomic<bool> rank0Queued{false};
  const size_t count = 1000;
  checkOnThreads(2, [&](trncclComm_t comm, int r, FailureLog& log) {
    std::vector<float> send(count, static_cast<float>(r + 1)), recv(count, -1.0f);
    if (r == 1) {
      // Joins only after rank 0's call has returned: rank 0's call cannot
      // have completed, it must be queued.
      if (!waitFor(rank0Queued)) return log.fail(r, "rank 0 never queued its all-reduce");
      if (!log.expect(r, "trncclAllReduce",
                      trncclAllReduce(send.data(), recv.data(), count, trncclFloat32, trncclSum, comm, nullptr),
                      trncclSuccess, comm))
        return false;
    } else {
      trncclStream_t stream = nullptr;
      if (!log.expect(r, "trncclStreamCreate", trncclStreamCreate(&stream), trncclSuccess, nullptr)) return false;
      log.expect(r, "trncclAllReduce on a stream",
                 trncclAllReduce(send.data(), recv.data(), count, trncclFloat32, trncclSum, comm, stream),
                 trncclSuccess, comm);
      log.expect(r, "trncclStreamQuery before the peer joined", trncclStreamQuery(stream), trncclInProgress, nullptr);
      rank0Queued = true;
      log.expect(r, "trncclStreamSynchronize", trncclStreamSynchronize(stream), trncclSuccess, nullptr);
      log.expect(r, "trncclStreamQuery after synchronize", trncclStreamQuery(stream), trncclSuccess, nullptr);
      log.expect(r, "trncclStreamDestroy", trncclStreamDestroy(stream), trncclSuccess, nullptr);
    }
    for (size_t i = 0; i < count; ++i)
      if (recv[i] != 3.0f)
        return log.fail(r, "recv[" + std::to_string(i) + "] = " + std::to_string(recv[i]) + ", expected 3");
    return true;
  });
}

TEST_CASE("streams: several collectives queued on a stream run in order", "[streams]") {
  const int n = 3;
  const size_t count = 37;
  checkOnThreads(n, [&](trncclComm_t comm, int r, FailureLog& log) {
    trncclStream_t s = nullptr;
    if (!log.expect(r, "trncclStreamCreate", trncclStreamCreate(&s), trncclSuccess, nullptr)) return false;
    std::vector<int32_t> x(count, r + 1), y(count, 0), g(count * n, 0), h(count, 0), k(count, 0);
    // Each step reads what the previous one wrote: out of order, the values differ.
    log.expect(r, "trncclAllReduce", trncclAllReduce(x.data(), y.data(), count, trncclInt32, trncclSum, comm, s),
               trncclSuccess, comm);  // y = 6
    log.expect(r, "trncclAllReduce in place",
               trncclAllReduce(y.data(), y.data(), count, trncclInt32, trncclSum, comm, s), trncclSuccess,
               comm);  // y = 18
    log.expect(r, "trncclAllGather", trncclAllGather(y.data(), g.data(), count, trncclInt32, comm, s), trncclSuccess,
               comm);  // g = 18...
    log.expect(r, "trncclReduceScatter",
               trncclReduceScatter(g.data(), h.data(), count, trncclInt32, trncclSum, comm, s), trncclSuccess,
               comm);  // h = 54
    log.expect(r, "trncclBroadcast in place", trncclBroadcast(h.data(), h.data(), count, trncclInt32, n - 1, comm, s),
               trncclSuccess, comm);
    log.expect(r, "trncclGroupStart", trncclGroupStart(), trncclSuccess, nullptr);
    log.expect(r, "trncclSend", trncclSend(h.data(), count, trncclInt32, (r + 1) % n, comm, s), trncclSuccess, comm);
    log.expect(r, "trncclRecv", trncclRecv(k.data(), count, trncclInt32, (r + n - 1) % n, comm, s), trncclSuccess,
               comm);
    log.expect(r, "trncclGroupEnd", trncclGroupEnd(), trncclSuccess, nullptr);
    const trncclResult_t q = trncclStreamQuery(s);
    if (q != trncclSuccess && q != trncclInProgress) log.fail(r, "trncclStreamQuery returned " + std::to_string(q));
    log.expect(r, "trncclStreamSynchronize", trncclStreamSynchronize(s), trncclSuccess, nullptr);
    log.expect(r, "trncclStreamQuery", trncclStreamQuery(s), trncclSuccess, nullptr);
    log.expect(r, "trncclStreamDestroy", trncclStreamDestroy(s), trncclSuccess, nullptr);
    for (size_t i = 0; i < count; ++i) {
      if (y[i] != 18 || h[i] != 54 || k[i] != 54)
        return log.fail(r, "element " + std::to_string(i) + ": y=" + std::to_string(y[i]) +
                               " h=" + std::to_string(h[i]) + " k=" + std::to_string(k[i]) + ", expected 18, 54, 54");
    }
    return true;
  });
}

TEST_CASE("streams: the NULL stream and an idle stream are complete", "[streams]") {
  CHECK(trncclStreamQuery(nullptr) == trncclSuccess);
  CHECK(trncclStreamSynchronize(nullptr) == trncclSuccess);
  trncclStream_t s = nullptr;
  REQUIRE(trncclStreamCreate(&s) == trncclSuccess);
  REQUIRE(s != nullptr);
  CHECK(trncclStreamQuery(s) == trncclSuccess);
  CHECK(trncclStreamSynchronize(s) == trncclSuccess);
  CHECK(trncclStreamDestroy(s) == trncclSuccess);
}

// Sends to both neighbours and receives from both, 1 MiB each way: more than
// a transport buffers, so it completes only if the group runs them together.
TEST_CASE("groups: sends and receives to both ring neighbours in one group, 1 MiB each", "[groups]") {
  const int n = 4;
  const size_t count = 1 << 18;  // int32: 1 MiB
  checkOnThreads(n, [&](trncclComm_t comm, int r, FailureLog& log) {
    const int next = (r + 1) % n, prev = (r + n - 1) % n;
    std::vector<int32_t> toNext(count), toPrev(count), fromNext(count, -1), fromPrev(count, -1);
    for (size_t i = 0; i < count; ++i)
      toNext[i] = exchanged(r, next, i), toPrev[i] = exchanged(r, prev, i) ^ 0x40000000;
    log.expect(r, "trncclGroupStart", trncclGroupStart(), trncclSuccess, nullptr);
    log.expect(r, "trncclSend next", trncclSend(toNext.data(), count, trncclInt32, next, comm, nullptr), trncclSuccess,
               comm);
    log.expect(r, "trncclSend prev", trncclSend(toPrev.data(), count, trncclInt32, prev, comm, nullptr), trncclSuccess,
               comm);
    log.expect(r, "trncclRecv next", trncclRecv(fromNext.data(), count, trncclInt32, next, comm, nullptr),
               trncclSuccess, comm);
    log.expect(r, "trncclRecv prev", trncclRecv(fromPrev.data(), count, trncclInt32, prev, comm, nullptr),
               trncclSuccess, comm);
    if (!log.expect(r, "trncclGroupEnd", trncclGroupEnd(), trncclSuccess, comm)) return false;
    for (size_t i = 0; i < count; ++i) {
      // From next: what next sent to its prev (us); from prev: what prev sent to its next (us).
      if (fromNext[i] != (exchanged(next, r, i) ^ 0x40000000) || fromPrev[i] != exchanged(prev, r, i))
        return log.fail(r, "element " + std::to_string(i) + " received wrong");
    }
    return true;
  });
}

TEST_CASE("groups: all-pairs exchange (every rank sends to and receives from every rank, itself included)",
          "[groups]") {
  const int n = 4;
  const size_t count = 50000;
  checkOnThreads(n, [&](trncclComm_t comm, int r, FailureLog& log) {
    std::vector<std::vector<int32_t>> out(n, std::vector<int32_t>(count)), in(n, std::vector<int32_t>(count, -1));
    log.expect(r, "trncclGroupStart", trncclGroupStart(), trncclSuccess, nullptr);
    // Receives posted in a different order than sends on purpose.
    for (int p = 0; p < n; ++p) {
      for (size_t i = 0; i < count; ++i) out[p][i] = exchanged(r, p, i);
      log.expect(r, "trncclSend", trncclSend(out[p].data(), count, trncclInt32, p, comm, nullptr), trncclSuccess, comm);
    }
    for (int p = n - 1; p >= 0; --p)
      log.expect(r, "trncclRecv", trncclRecv(in[p].data(), count, trncclInt32, p, comm, nullptr), trncclSuccess, comm);
    if (!log.expect(r, "trncclGroupEnd", trncclGroupEnd(), trncclSuccess, comm)) return false;
    for (int p = 0; p < n; ++p)
      for (size_t i = 0; i < count; ++i)
        if (in[p][i] != exchanged(p, r, i))
          return log.fail(r, "from rank " + std::to_string(p) + ": element " + std::to_string(i) + " wrong");
    return true;
  });
}

TEST_CASE("groups: one thread drives every rank's communicator in one group", "[groups]") {
  const int n = 4;
  std::vector<trncclComm_t> comms(n, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), n, nullptr) == trncclSuccess);
  const size_t count = 20000;  // above the slice size: pipelined

  SECTION("all-reduce and broadcast on every rank, NULL stream") {
    std::vector<std::vector<float>> send(n), recv(n), bcast(n);
    for (int r = 0; r < n; ++r) {
      send[r].assign(count, static_cast<float>(r + 1));
      recv[r].assign(count, 0.0f);
      bcast[r].assign(count, static_cast<float>(100 + r));
    }
    REQUIRE(trncclGroupStart() == trncclSuccess);
    for (int r = 0; r < n; ++r) {
      INFO("rank " << r);
      CHECK(trncclAllReduce(send[r].data(), recv[r].data(), count, trncclFloat32, trncclSum, comms[r], nullptr) ==
            trncclSuccess);
      CHECK(trncclBroadcast(bcast[r].data(), bcast[r].data(), count, trncclFloat32, 2, comms[r], nullptr) ==
            trncclSuccess);
    }
    const trncclResult_t rc = trncclGroupEnd();
    INFO(trncclGetLastError(nullptr));
    REQUIRE(rc == trncclSuccess);
    for (int r = 0; r < n; ++r) {
      INFO("rank " << r);
      CHECK(std::count(recv[r].begin(), recv[r].end(), 10.0f) == static_cast<long>(count));
      CHECK(std::count(bcast[r].begin(), bcast[r].end(), 102.0f) == static_cast<long>(count));
    }
  }

  SECTION("nested groups: a ring of sends and receives") {
    std::vector<std::vector<int32_t>> out(n), in(n);
    REQUIRE(trncclGroupStart() == trncclSuccess);
    for (int r = 0; r < n; ++r) {
      out[r].resize(count);
      in[r].assign(count, -1);
      for (size_t i = 0; i < count; ++i) out[r][i] = exchanged(r, (r + 1) % n, i);
      REQUIRE(trncclGroupStart() == trncclSuccess);
      CHECK(trncclSend(out[r].data(), count, trncclInt32, (r + 1) % n, comms[r], nullptr) == trncclSuccess);
      CHECK(trncclRecv(in[r].data(), count, trncclInt32, (r + n - 1) % n, comms[r], nullptr) == trncclSuccess);
      REQUIRE(trncclGroupEnd() == trncclSuccess);  // inner: nothing runs yet
    }
    const trncclResult_t rc = trncclGroupEnd();
    INFO(trncclGetLastError(nullptr));
    REQUIRE(rc == trncclSuccess);
    for (int r = 0; r < n; ++r) {
      const int prev = (r + n - 1) % n;
      for (size_t i = 0; i < count; ++i) {
        INFO("rank " << r << " element " << i);
        REQUIRE(in[r][i] == exchanged(prev, r, i));
      }
    }
  }

  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
}

TEST_CASE("groups: a group of sends and receives on a stream completes at synchronize", "[groups][streams]") {
  const int n = 3;
  const size_t count = 30000;
  checkOnThreads(n, [&](trncclComm_t comm, int r, FailureLog& log) {
    trncclStream_t s = nullptr;
    if (!log.expect(r, "trncclStreamCreate", trncclStreamCreate(&s), trncclSuccess, nullptr)) return false;
    std::vector<int32_t> out(count), in(count, -1);
    for (size_t i = 0; i < count; ++i) out[i] = exchanged(r, (r + 1) % n, i);
    log.expect(r, "trncclGroupStart", trncclGroupStart(), trncclSuccess, nullptr);
    log.expect(r, "trncclRecv", trncclRecv(in.data(), count, trncclInt32, (r + n - 1) % n, comm, s), trncclSuccess,
               comm);
    log.expect(r, "trncclSend", trncclSend(out.data(), count, trncclInt32, (r + 1) % n, comm, s), trncclSuccess, comm);
    log.expect(r, "trncclGroupEnd", trncclGroupEnd(), trncclSuccess, nullptr);
    log.expect(r, "trncclStreamSynchronize", trncclStreamSynchronize(s), trncclSuccess, nullptr);
    log.expect(r, "trncclStreamDestroy", trncclStreamDestroy(s), trncclSuccess, nullptr);
    for (size_t i = 0; i < count; ++i)
      if (in[i] != exchanged((r + n - 1) % n, r, i)) return log.fail(r, "element " + std::to_string(i) + " wrong");
    return true;
  });
}

TEST_CASE("groups: one thread drives every rank, each rank on its own stream", "[groups][streams]") {
  const int n = 3;
  const size_t count = 50000;
  std::vector<trncclComm_t> comms(n, nullptr);
  REQUIRE(trncclCommInitAll(comms.data(), n, nullptr) == trncclSuccess);
  std::vector<trncclStream_t> streams(n, nullptr);
  for (auto& s : streams) REQUIRE(trncclStreamCreate(&s) == trncclSuccess);
  std::vector<std::vector<int64_t>> data(n);
  for (int r = 0; r < n; ++r) data[r].assign(count, r + 1);
  REQUIRE(trncclGroupStart() == trncclSuccess);
  for (int r = 0; r < n; ++r)
    CHECK(trncclAllReduce(data[r].data(), data[r].data(), count, trncclInt64, trncclProd, comms[r], streams[r]) ==
          trncclSuccess);
  REQUIRE(trncclGroupEnd() == trncclSuccess);
  for (int r = 0; r < n; ++r) {
    const trncclResult_t rc = trncclStreamSynchronize(streams[r]);
    INFO("rank " << r << ": " << trncclGetLastError(nullptr));
    CHECK(rc == trncclSuccess);
    CHECK(std::count(data[r].begin(), data[r].end(), int64_t{6}) == static_cast<long>(count));
  }
  for (auto s : streams) CHECK(trncclStreamDestroy(s) == trncclSuccess);
  for (trncclComm_t c : comms) CHECK(trncclCommDestroy(c) == trncclSuccess);
}

TEST_CASE("groups: collectives and sends/receives mixed in one group", "[groups]") {
  const int n = 4;
  const size_t count = 40000;
  checkOnThreads(n, [&](trncclComm_t comm, int r, FailureLog& log) {
    std::vector<int32_t> sum(count, r), bcast(count, r == 1 ? 77 : -1), out(count), in(count, -1);
    for (size_t i = 0; i < count; ++i) out[i] = exchanged(r, (r + 1) % n, i);
    log.expect(r, "trncclGroupStart", trncclGroupStart(), trncclSuccess, nullptr);
    log.expect(r, "trncclAllReduce",
               trncclAllReduce(sum.data(), sum.data(), count, trncclInt32, trncclSum, comm, nullptr), trncclSuccess,
               comm);
    log.expect(r, "trncclSend", trncclSend(out.data(), count, trncclInt32, (r + 1) % n, comm, nullptr), trncclSuccess,
               comm);
    log.expect(r, "trncclBroadcast", trncclBroadcast(bcast.data(), bcast.data(), count, trncclInt32, 1, comm, nullptr),
               trncclSuccess, comm);
    log.expect(r, "trncclRecv", trncclRecv(in.data(), count, trncclInt32, (r + n - 1) % n, comm, nullptr),
               trncclSuccess, comm);
    if (!log.expect(r, "trncclGroupEnd", trncclGroupEnd(), trncclSuccess, comm)) return false;
    for (size_t i = 0; i < count; ++i) {
      if (sum[i] != 6 || bcast[i] != 77 || in[i] != exchanged((r + n - 1) % n, r, i))
        return log.fail(r, "element " + std::to_string(i) + ": sum " + std::to_string(sum[i]) + " (6), broadcast " +
                               std::to_string(bcast[i]) + " (77), received " + std::to_string(in[i]));
    }
    return true;
  });
}

TEST_CASE("groups: gather, scatter, the v-collectives and permute fused in one group", "[groups]") {
  // Rank r's all-to-all-v block to rank p is r + p + 1 elements; the count
  // arrays live only until each call returns, so the group must keep its own.
  const int n = 3;
  const size_t count = 5000;
  checkOnThreads(n, [&](trncclComm_t comm, int r, FailureLog& log) {
    // Rank r's blocks to (and from, the same lengths) each rank, packed in rank order.
    auto blocks = [&] {
      std::vector<size_t> counts(n), displs(n);
      size_t at = 0;
      for (int q = 0; q < n; ++q) counts[q] = static_cast<size_t>(r + q + 1), displs[q] = at, at += counts[q];
      return std::pair{counts, displs};
    };
    std::vector<int32_t> mine(count), gathered(count * n, -1), scattered(count, -1), permuted(count, -1);
    for (size_t i = 0; i < count; ++i) mine[i] = exchanged(r, r, i);
    std::vector<int32_t> toScatter(count * n);
    for (size_t i = 0; i < toScatter.size(); ++i) toScatter[i] = exchanged(r, 1, i);
    std::vector<int32_t> a2aIn(64, -1), a2aOut(64);
    for (size_t i = 0; i < a2aOut.size(); ++i) a2aOut[i] = exchanged(r, 2, i);
    log.expect(r, "trncclGroupStart", trncclGroupStart(), trncclSuccess, nullptr);
    log.expect(r, "trncclGather", trncclGather(mine.data(), gathered.data(), count, trncclInt32, 2, comm, nullptr),
               trncclSuccess, comm);
    log.expect(r, "trncclScatter",
               trncclScatter(toScatter.data(), scattered.data(), count, trncclInt32, 1, comm, nullptr), trncclSuccess,
               comm);
    {
      const auto [counts, displs] = blocks();
      log.expect(r, "trncclAlltoAllv",
                 trncclAlltoAllv(a2aOut.data(), counts.data(), displs.data(), a2aIn.data(), counts.data(),
                                 displs.data(), trncclInt32, comm, nullptr),
                 trncclSuccess, comm);
    }
    log.expect(
        r, "trncclPermute",
        trncclPermute(mine.data(), permuted.data(), count, trncclInt32, (r + 1) % n, (r + n - 1) % n, comm, nullptr),
        trncclSuccess, comm);
    if (!log.expect(r, "trncclGroupEnd", trncclGroupEnd(), trncclSuccess, comm)) return false;
    for (size_t i = 0; i < count; ++i) {
      if (scattered[i] != exchanged(1, 1, static_cast<size_t>(r) * count + i))
        return log.fail(r, "scattered element " + std::to_string(i));
      if (permuted[i] != exchanged((r + n - 1) % n, (r + n - 1) % n, i))
        return log.fail(r, "permuted element " + std::to_string(i));
      for (int q = 0; r == 2 && q < n; ++q)
        if (gathered[q * count + i] != exchanged(q, q, i))
          return log.fail(r, "gathered element " + std::to_string(q * count + i));
    }
    // From rank q: its block to r (q + r + 1 elements) starts at the sum of its blocks to ranks before r.
    size_t at = 0;
    for (int q = 0; q < n; ++q) {
      size_t from = 0;
      for (int p = 0; p < r; ++p) from += static_cast<size_t>(q + p + 1);
      for (size_t k = 0; k < static_cast<size_t>(q + r + 1); ++k, ++at)
        if (a2aIn[at] != exchanged(q, 2, from + k)) return log.fail(r, "all-to-all-v element " + std::to_string(at));
    }
    return true;
  });
}
