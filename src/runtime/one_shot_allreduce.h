// The one-shot all-reduce: the mesh algorithm's all-reduce (every rank's
// whole buffer goes to every rank, and each reduces all n of them in rank
// order) run over the transport's block board (transport.h: BlockBoard)
// instead of a message per peer. Each rank copies its input into its block,
// publishes it, and reduces the n blocks, read in place, into its output: a
// small all-reduce costs one cache-line transfer each way, not a FIFO
// message with its matching and bookkeeping per peer. It runs the mesh
// schedule's data flow, which is what the tuner chose and the simulator
// prices, and computes the same bits (the same sources in the same order,
// the same stochastic-rounding key).
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/schedule.h"
#include "runtime/executor.h"
#include "transports/transport.h"

namespace trnccl::runtime {

class OneShotAllReduce {
 public:
  explicit OneShotAllReduce(const ExecutorContext& context) : ctx_(context) {}

  // Whether the communicator's transports offer a block board that
  // `schedule`'s buffer fits.
  bool fits(const algo::Schedule& schedule) const;
  // Runs `schedule`'s all-reduce (its count, type and op) on the call's
  // kSend and kRecv buffers in two parts: post() publishes this rank's
  // block, complete() waits for the peers' blocks and reduces them. The
  // caller may do its own bookkeeping in between, while the block travels
  // (on 2 ranks that time is otherwise spent waiting). complete() throws
  // trnccl::Error as the executor does.
  void post(const algo::Schedule& schedule, const Call& call);
  void complete(const algo::Schedule& schedule, const Call& call);

 private:
  transport::BlockBoard* board() const;

  const ExecutorContext& ctx_;
  uint64_t calls_ = 0;                // the board's call numbers: the same on every rank
  std::vector<const void*> sources_;  // by rank: the blocks reduced
  uint64_t postedAt_ = 0;             // for the trace: when post() began
};

}  // namespace trnccl::runtime
