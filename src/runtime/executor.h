// The executor runs one rank's schedule over real transports: every step is
// streamed through bounded staging buffers in slices, so receiving slice j+1
// overlaps reducing slice j and forwarding slice j-1; reductions and copies go
// to the simulated device's vector and DMA engines. Every wait backs off
// (spin, yield, block in the transport) and is bounded by the timeout.
//
// One Executor per communicator, reused by every call (calls on a
// communicator never overlap: they take turns), so its per-channel state and
// staging buffers are allocated once and a small collective allocates nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/schedule.h"
#include "device/device.h"
#include "device/kernels/kernels.h"
#include "runtime/flight_recorder.h"
#include "runtime/trace_writer.h"
#include "transports/transport.h"

namespace trnccl::runtime {

// What the executor needs of a communicator.
struct ExecutorContext {
  int rank = 0;
  int nranks = 1;
  std::vector<transport::Transport*> transportOf;  // indexed by peer rank
  std::vector<transport::Transport*> transports;   // each distinct transport once
  device::Device* device = nullptr;
  size_t sliceBytes = 512 * 1024;  // the pipelining unit
  int window = 4;                  // slices in flight per step
  bool oversubscribed = false;     // more ranks on this host than cores: yield, never spin
  std::chrono::milliseconds timeout{300000};
  // Set to an error (trncclSuccess: run on): every call gives up with it
  // (trncclInvalidUsage: aborted; trncclRemoteError: revoked).
  const std::atomic<trncclResult_t>* stop = nullptr;
  device::kernels::Rounding rounding = device::kernels::Rounding::NearestEven;
  uint64_t seed = 0;
  FlightRecorder* recorder = nullptr;  // told which peer and step a blocked call waits on; null: off
  TraceBuffer* trace = nullptr;        // TRNCCL_TRACE: steps and transfers; null: off
};

// One call: its buffers (indexed by algo::Buffer) and its identity.
struct Call {
  void* const* buffers = nullptr;  // [kNone]=nullptr, [kSend], [kRecv], [kScratch], user buffers...
  size_t bufferCount = 0;
  uint64_t tagBase = 0;   // high bits of every message tag of this call
  const char* what = "";  // "allreduce", for messages
  uint64_t sequence = 0;
};

// Message tags: bits 63..40 name the call, 39..16 the step's tag, 15..0 the
// slice. A call is a point-to-point group (bit 63), a collective's check
// (bit 62, TRNCCL_CHECK) or the collective itself, by its sequence number.
inline uint64_t collectiveTagBase(uint64_t sequence) { return (sequence & 0x3fffff) << 40; }
inline uint64_t checkTagBase(uint64_t sequence) { return collectiveTagBase(sequence) | uint64_t(1) << 62; }
inline constexpr uint64_t kP2PTagBase = uint64_t(1) << 63;
inline constexpr size_t kMaxSlicesPerStep = 1 << 16;

class ChannelRunner;

class Executor {
 public:
  explicit Executor(const ExecutorContext& context);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Throws trnccl::Error; on any error every posted request is cancelled first.
  void run(const algo::Schedule& schedule, const Call& call);
  // Staging buffers allocated so far (each on first use, then kept): per
  // channel, two steps in flight of `window` slots of a receive and a send
  // buffer of `sliceBytes` each, at most.
  size_t stagingBytes() const;
  // Frees every staging buffer (they come back on first use).
  void releaseBuffers();

 private:
  void runPhase(const algo::Phase& phase, size_t firstStep, const algo::Schedule& schedule, const Call& call);
  // Error path: every posted request cancelled, every channel reset.
  void cancel();
  // What the transports know of departed peers that `message` does not name yet.
  std::string departuresText(const std::string& message) const;

  const ExecutorContext& ctx_;
  std::vector<std::unique_ptr<ChannelRunner>> channels_;  // grown on demand, reused
};

}  // namespace trnccl::runtime
