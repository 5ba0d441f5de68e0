// The one-shot all-reduce over the shm block board against the executor
// running the same mesh schedule through the FIFOs: the same bits for every
// type, op, count that fits a block, layout and rounding; and, where the
// values make it exact, the independent reference.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "algorithms/mesh.h"
#include "base/datatype.h"
#include "device/device.h"
#include "runtime/executor.h"
#include "runtime/one_shot_allreduce.h"
#include "tests/transports/check.h"
#include "tests/transports/launch.h"
#include "transports/shm/shm_transport.h"

using namespace trnccl;
using namespace trnccl::test;

namespace {

struct Case {
  trncclDataType_t type;
  trncclRedOp_t op;
  size_t count;
  bool inPlace;
  std::string describe() const {
    return std::string(typeName(type)) + " " + opName(op) + " x " + std::to_string(count) +
           (inPlace ? " in place" : " out of place");
  }
};

std::vector<Case> cases(size_t blockBytes) {
  std::vector<Case> all;
  for (int t = 0; t < trncclNumTypes; ++t) {
    const auto type = static_cast<trncclDataType_t>(t);
    for (int o = 0; o < trncclNumOps; ++o)
      for (size_t count : {size_t{1}, size_t{3}, size_t{12}, size_t{100}, blockBytes / typeSize(type)})
        for (bool inPlace : {false, true}) all.push_back({type, static_cast<trncclRedOp_t>(o), count, inPlace});
  }
  return all;
}

// One rank's executor context over shared memory with every other rank.
runtime::ExecutorContext contextOf(int rank, int n, transport::Transport& t, device::Device& device) {
  runtime::ExecutorContext context;
  context.rank = rank;
  context.nranks = n;
  for (int q = 0; q < n; ++q) context.transportOf.push_back(q == rank ? nullptr : &t);
  context.transports = {&t};
  context.device = &device;
  context.timeout = std::chrono::seconds(30);
  return context;
}

// Random bytes (NaNs and infinities included: both paths must agree on
// them too), the same on every run.
std::vector<char> inputOf(int rank, const Case& c, uint64_t salt) {
  std::mt19937_64 random(salt * 1000003 + static_cast<uint64_t>(rank) * 7919 + c.count * 31 + c.type * 5 + c.op);
  std::vector<char> bytes(c.count * typeSize(c.type));
  for (char& b : bytes) b = static_cast<char>(random());
  return bytes;
}

// Runs every case both ways on n thread ranks; the first mismatch, if any.
void compareWithFifoMesh(int n, device::kernels::Rounding rounding) {
  const std::string jobKey = uniqueJobKey("one-shot");
  requireAllOk(launch(Launch::Threads, n, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    device::Device device(device::trainium());
    runtime::ExecutorContext context = contextOf(rank, n, *t, device);
    context.rounding = rounding;
    context.seed = 42;
    runtime::Executor executor(context);
    runtime::OneShotAllReduce oneShot(context);
    uint64_t sequence = 1;
    for (const Case& c : cases(t->blockBoard()->blockBytes())) {
      algo::CollectiveArgs args;
      args.collective = algo::Collective::AllReduce;
      args.rank = rank;
      args.nranks = n;
      args.count = c.count;
      args.type = c.type;
      args.op = c.op;
      args.inPlace = c.inPlace;
      const algo::Schedule schedule = algo::Mesh().build(args);
      expect(oneShot.fits(schedule), c.describe() + " does not fit a block");
      const size_t bytes = c.count * typeSize(c.type);
      std::vector<char> scratch(schedule.scratchElements * typeSize(c.type));
      auto run = [&](bool board) {
        std::vector<char> send = inputOf(rank, c, sequence), recv(bytes, 0);
        void* const buffers[] = {nullptr, send.data(), c.inPlace ? send.data() : recv.data(), scratch.data()};
        runtime::Call call;
        call.buffers = buffers;
        call.bufferCount = std::size(buffers);
        call.tagBase = runtime::collectiveTagBase(sequence);
        call.sequence = sequence;
        call.what = "allreduce";
        if (board) {
          oneShot.post(schedule, call);
          oneShot.complete(schedule, call);
        } else {
          executor.run(schedule, call);
        }
        return c.inPlace ? send : recv;
      };
      const std::vector<char> viaBoard = run(true), viaFifo = run(false);
      expect(viaBoard == viaFifo, "rank " + std::to_string(rank) + ", " + c.describe() +
                                      ": the one-shot result differs from the FIFO mesh's");
      ++sequence;
    }
    oob.barrier();
  }));
}

}  // namespace

TEST_CASE("one-shot all-reduce: same bits as the mesh schedule through the FIFOs, every type, op and layout",
          "[one-shot]") {
  const int n = GENERATE(2, 3, 4);
  INFO(n << " ranks");
  compareWithFifoMesh(n, device::kernels::Rounding::NearestEven);
}

TEST_CASE("one-shot all-reduce: same bits as the FIFO mesh with stochastic rounding", "[one-shot][rounding]") {
  compareWithFifoMesh(3, device::kernels::Rounding::Stochastic);
}

TEST_CASE("one-shot all-reduce: exact sums, products, extremes and averages against a reference", "[one-shot]") {
  const int n = 4;
  const std::string jobKey = uniqueJobKey("one-shot-reference");
  requireAllOk(launch(Launch::Threads, n, [&](int rank, TestOutOfBand& oob) {
    auto t = transport::createShmTransport(optionsFor(oob, jobKey));
    device::Device device(device::trainium());
    const runtime::ExecutorContext context = contextOf(rank, n, *t, device);
    runtime::OneShotAllReduce oneShot(context);
    // Small integers: every op is exact in float and int32, whatever the order.
    auto value = [](int r, size_t i) { return static_cast<int>((i * 7 + static_cast<size_t>(r) * 3) % 5) - 2; };
    uint64_t sequence = 1;
    for (trncclRedOp_t op : {trncclSum, trncclProd, trncclMax, trncclMin, trncclAvg}) {
      for (size_t count : {size_t{1}, size_t{11}, size_t{512}}) {
        algo::CollectiveArgs args;
        args.collective = algo::Collective::AllReduce;
        args.rank = rank;
        args.nranks = n;
        args.count = count;
        args.type = trncclFloat32;
        args.op = op;
        const algo::Schedule schedule = algo::Mesh().build(args);
        std::vector<float> send(count), recv(count, -99);
        for (size_t i = 0; i < count; ++i) send[i] = static_cast<float>(value(rank, i));
        void* const buffers[] = {nullptr, send.data(), recv.data(), nullptr};
        runtime::Call call;
        call.buffers = buffers;
        call.bufferCount = std::size(buffers);
        call.tagBase = runtime::collectiveTagBase(sequence);
        call.sequence = sequence++;
        call.what = "allreduce";
        oneShot.post(schedule, call);
        oneShot.complete(schedule, call);
        for (size_t i = 0; i < count; ++i) {
          double expected = op == trncclProd ? 1 : op == trncclMax ? -1e9 : op == trncclMin ? 1e9 : 0;
          for (int r = 0; r < n; ++r) {
            const double v = value(r, i);
            expected = op == trncclProd  ? expected * v
                       : op == trncclMax ? std::max(expected, v)
                       : op == trncclMin ? std::min(expected, v)
                                         : expected + v;
          }
          if (op == trncclAvg) expected /= n;
          expect(recv[i] == static_cast<float>(expected),
                 std::string(opName(op)) + " x " + std::to_string(count) + ": element " + std::to_string(i) + " is " +
                     std::to_string(recv[i]) + ", not " + std::to_string(expected));
        }
      }
    }
    oob.barrier();
  }));
}
