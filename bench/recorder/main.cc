// trnccl-recorder-bench: what the flight recorder costs per call, beside a
// steady-clock read (what a recorder built on the clock would pay three
// times a call) and a whole one-rank all-reduce with the recorder off and on.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <chrono>
#include <string>

#include "base/collective_table.h"
#include "runtime/flight_recorder.h"
#include "trnccl/trnccl.h"

namespace {

using trnccl::runtime::FlightRecorder;
using trnccl::runtime::OpInfo;

OpInfo allReduceInfo(uint64_t seq) {
  OpInfo info;
  info.sequence = seq;
  info.collective = trnccl::collectiveFacts(trnccl::Collective::AllReduce).name;
  info.count = 1024;
  info.type = trncclFloat32;
  info.op = trncclSum;
  return info;
}

// What the communicator and the executor do around every collective; with
// waits:1 the call also blocks once (the executor reports the wait and the
// resume).
void BM_RecordCall(benchmark::State& state) {
  FlightRecorder recorder(64);
  const bool waits = state.range(0) != 0;
  uint64_t seq = 0;
  for (auto _ : state) {
    recorder.begin(allReduceInfo(seq++));
    recorder.running("ring");
    if (waits) {
      recorder.waiting(1, 3, true);
      recorder.resumed();
    }
    recorder.finish(true);
  }
}
BENCHMARK(BM_RecordCall)->ArgName("waits")->Arg(0)->Arg(1);

// The peer: one steady-clock read.
void BM_SteadyClockNow(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(std::chrono::steady_clock::now());
}
BENCHMARK(BM_SteadyClockNow);

// A whole blocking one-rank all-reduce of one float through the C API, with
// TRNCCL_RECORDER_OPS set to the argument (0: off).
void BM_AllReduceOneRank(benchmark::State& state) {
  setenv("TRNCCL_RECORDER_OPS", std::to_string(state.range(0)).c_str(), 1);
  trncclComm_t comm = nullptr;
  if (trncclCommInitAll(&comm, 1, nullptr) != trncclSuccess) {
    state.SkipWithError(trncclGetLastError(nullptr));
    return;
  }
  float x = 1.0f;
  for (auto _ : state) {
    if (trncclAllReduce(&x, &x, 1, trncclFloat32, trncclSum, comm, nullptr) != trncclSuccess) {
      state.SkipWithError(trncclGetLastError(comm));
      break;
    }
  }
  trncclCommDestroy(comm);
  unsetenv("TRNCCL_RECORDER_OPS");
}
BENCHMARK(BM_AllReduceOneRank)->ArgName("recorder_ops")->Arg(0)->Arg(64);

}  // namespace

BENCHMARK_MAIN();
