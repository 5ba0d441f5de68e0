// TRNCCL_TRACE=file.json: a Chrome/Perfetto trace-event file of every
// collective, step and transfer. A communicator collects its events in a
// TraceBuffer (one writer at a time: its operations take turns) and hands
// them to the process's TraceFile for that path when it ends; the file is
// rewritten with every communicator's events so far, so ranks that are
// threads of one process share one file. `%r` and `%p` in the path become the
// rank and the process id (one file per rank of a multi-process job).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/ticks.h"

namespace trnccl::runtime {

enum class TraceKind : uint8_t { Collective, Step, Send, Recv };

struct TraceEvent {
  TraceKind kind = TraceKind::Collective;
  uint16_t channel = 0;
  uint16_t lane = 0;            // the step's lane (two steps in flight per channel)
  uint16_t slot = 0;            // a transfer's slot (slices in flight per step)
  int32_t peer = -1;            // a step's receive peer, a transfer's peer
  int32_t peer2 = -1;           // a step's send peer
  uint64_t begin = 0, end = 0;  // ticks
  uint64_t index = 0;           // a collective's sequence number, a step's index, a transfer's slice
  uint64_t amount = 0;          // a collective's count, a step's elements, a transfer's bytes
  const char* name = "";        // the collective
  const char* detail = "";      // a collective's algorithm
  bool failed = false;
};

// Checks the value of TRNCCL_TRACE (throws InvalidArgument naming it) and
// returns the path for this rank, which must be a file it can create.
std::string tracePathFor(const std::string& pattern, int rank);

class TraceBuffer {
 public:
  // At most `limit` events are kept (a long run would otherwise grow without
  // bound); the rest are counted as dropped.
  TraceBuffer(std::string path, std::string processName, int64_t processId, size_t limit = 4u << 20);
  ~TraceBuffer();  // hands the events to the file
  TraceBuffer(const TraceBuffer&) = delete;
  TraceBuffer& operator=(const TraceBuffer&) = delete;

  void add(const TraceEvent& e) {
    if (events_.size() < limit_)
      events_.push_back(e);
    else
      ++dropped_;
  }

 private:
  std::string path_, processName_;
  int64_t processId_;
  size_t limit_;
  std::vector<TraceEvent> events_;
  uint64_t dropped_ = 0;
  TickClock clock_;
};

}  // namespace trnccl::runtime
