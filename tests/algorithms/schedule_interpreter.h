// Runs the schedules of all ranks of one collective in memory, on doubles:
// messages are matched by (sender, receiver, tag) exactly as the transports
// do, steps run whole (no slicing), and every write into each rank's receive
// buffer is counted. It knows nothing of the algorithms, so it checks them
// independently of the runtime's executor.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "algorithms/schedule.h"

namespace trnccl::test {

// One rank's memory: the send and receive buffers are windows of `memory`,
// which is how in-place calls alias them.
struct RankBuffers {
  std::vector<double> memory;
  size_t sendAt = 0, sendSize = 0;
  size_t recvAt = 0, recvSize = 0;
  std::vector<int> recvWrites;  // per element of the receive buffer

  double send(size_t i) const { return memory[sendAt + i]; }
  double recv(size_t i) const { return memory[recvAt + i]; }
};

struct InterpreterResult {
  bool ok = true;
  std::string error;  // deadlock, unmatched or duplicate message, size mismatch
};

// `buffers[r]` holds rank r's inputs on entry and outputs on return.
InterpreterResult interpret(const std::vector<algo::Schedule>& schedules, std::vector<RankBuffers>& buffers);

}  // namespace trnccl::test
