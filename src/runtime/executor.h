// The executor runs one rank's schedule over real transports: every step is
// streamed through bounded staging buffers in slices, so receiving slice j+1
// overlaps reducing slice j and forwarding slice j-1; reductions and copies go
// to the simulated device's vector and DMA engines. Every wait backs off
// (spin, yield, block in the transport) and is bounded by the timeout.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/schedule.h"
#include "device/device.h"
#include "device/kernels/kernels.h"
#include "runtime/staging.h"
#include "transports/transport.h"

namespace trnccl::runtime {

// What the executor needs of a communicator.
struct ExecutorContext {
  int rank = 0;
  int nranks = 1;
  std::vector<transport::Transport*> transportOf;  // indexed by peer rank
  std::vector<transport::Transport*> transports;   // each distinct transport once
  device::Device* device = nullptr;
  StagingPool* staging = nullptr;  // its buffer size is the slice size
  int window = 4;                  // slices in flight per step
  std::chrono::milliseconds timeout{300000};
  const std::atomic<bool>* abortFlag = nullptr;
  kernels::Rounding rounding = kernels::Rounding::NearestEven;
  uint64_t seed = 0;
};

// One call: its buffers (indexed by algo::Buffer) and its identity.
struct Call {
  std::vector<void*> buffers;  // [kNone]=nullptr, [kSend], [kRecv], [kScratch], user buffers...
  uint64_t tagBase = 0;        // high bits of every message tag of this call
  std::string label;           // "allreduce #17", for errors and traces
};

// Message tags: bits 63..40 name the call, 39..16 the step's tag, 15..0 the slice.
inline uint64_t collectiveTagBase(uint64_t sequence) { return (sequence & 0x7fffff) << 40; }
inline constexpr uint64_t kP2PTagBase = uint64_t(1) << 63;
inline constexpr size_t kMaxSlicesPerStep = 1 << 16;

// Throws trnccl::Error; on any error every posted request is cancelled first.
void execute(const algo::Schedule& schedule, const Call& call, const ExecutorContext& ctx);

}  // namespace trnccl::runtime
