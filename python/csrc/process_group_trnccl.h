// ProcessGroupTrnccl: PyTorch's c10d ProcessGroup over trnccl's public C API.
// Every operation is queued on a trnccl stream of its own and returns at once;
// a completion thread synchronizes those streams in issue order (the order in
// which trnccl runs a communicator's operations) and completes each Work and
// its Future, so DDP overlaps gradient all-reduce with the backward pass.
#pragma once

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "trnccl/trnccl.h"

namespace trnccl_torch {

// Streams reused across operations (a trnccl stream owns a thread). A stream is
// handed out only when everything queued on it has been synchronized.
class StreamPool {
 public:
  StreamPool() = default;
  ~StreamPool();
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;
  trncclStream_t acquire();
  void release(trncclStream_t stream);

 private:
  std::mutex mutex_;
  std::vector<trncclStream_t> idle_;
  std::vector<trncclStream_t> all_;
};

class WorkTrnccl : public c10d::Work {
 public:
  // `outputs` are what the Future and result() give; `keepAlive` holds every
  // buffer the queued call reads or writes; `copyBack` moves staged results
  // into the caller's (non-contiguous or scattered) tensors once it succeeded.
  WorkTrnccl(int rank, c10d::OpType type, trncclStream_t stream, std::vector<at::Tensor> outputs,
             std::vector<at::Tensor> keepAlive, std::function<void()> copyBack);

  std::vector<at::Tensor> result() override;
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

  trncclStream_t stream() const { return stream_; }
  // The Works of a coalesced batch share one stream; only the last one hands
  // it back to the pool, once the whole batch is synchronized.
  bool releasesStream() const { return releasesStream_; }
  void keepStream() { releasesStream_ = false; }
  // Called by the completion thread once the stream is synchronized (or by
  // endCoalescing when its batch could not be queued).
  void complete(trncclResult_t result, const std::string& message);
  // A receive's sender (c10d asks a receive from any source for it).
  void setSourceRank(int rank) { sourceRank_ = rank; }
  int sourceRank() const override;

 private:
  trncclStream_t stream_;
  bool releasesStream_ = true;
  int sourceRank_ = -1;
  std::vector<at::Tensor> outputs_;
  std::vector<at::Tensor> keepAlive_;
  std::function<void()> copyBack_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

class ProcessGroupTrnccl : public c10d::ProcessGroup {
 public:
  // A communicator of its own: rank 0 publishes trnccl's unique id in `store`,
  // the other ranks read it there.
  ProcessGroupTrnccl(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                     std::chrono::milliseconds timeout);
  // A communicator split from `parent` (trncclCommSplit); every rank of the
  // parent calls this, and `rank` orders the ranks of the new one.
  ProcessGroupTrnccl(ProcessGroupTrnccl& parent, int rank, int size, std::chrono::milliseconds timeout);
  // The survivors of `parent` without the `excluded` ranks (trncclCommShrink
  // with TRNCCL_SHRINK_ABORT: the parent's outstanding work is revoked).
  // Every survivor calls it with the same list; the excluded ranks do not.
  // Adopts a communicator made elsewhere (shrink() makes one).
  ProcessGroupTrnccl(trncclComm_t comm, int rank, int size, std::chrono::milliseconds timeout);
  static c10::intrusive_ptr<ProcessGroupTrnccl> shrink(ProcessGroupTrnccl& parent, std::vector<int> excluded,
                                                       std::chrono::milliseconds timeout);
  ~ProcessGroupTrnccl() override;

  const std::string getBackendName() const override { return "trnccl"; }
  std::string transportName() const;

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                     const c10d::AllreduceCoalescedOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputLists,
                                                     std::vector<at::Tensor>& inputs,
                                                     const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                      const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<int64_t>& outputSplits, std::vector<int64_t>& inputSplits,
                                               const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dstRank, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int srcRank, int tag) override;
  // The caller waits (up to the group's timeout) until some rank's next
  // message to this one has arrived (trncclProbe); its receive is then queued
  // as recv() queues one, and the Work's sourceRank() names the sender.
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;
  // torch's batch_isend_irecv calls its operations between these: they become
  // one trnccl group, so a receive posted before a send does not block it.
  void startCoalescing() override;
  void endCoalescing(std::vector<c10::intrusive_ptr<c10d::Work>>& reqs) override;

 private:
  using Call = std::function<trncclResult_t(trncclStream_t)>;
  // Queues `call` on a stream and returns its Work (throws what trnccl says
  // when the call is refused).
  c10::intrusive_ptr<c10d::Work> launch(c10d::OpType type, const char* name, const Call& call,
                                        std::vector<at::Tensor> outputs, std::vector<at::Tensor> keepAlive,
                                        std::function<void()> copyBack = nullptr);
  // Whether a call of `type` on `buffers` runs in the calling thread (see launch()).
  bool runsInline(c10d::OpType type, const std::vector<at::Tensor>& buffers);
  // Runs `call` on a stream of its own and waits for it (throws what trnccl
  // says on failure): for operations whose next step needs this one's result.
  void runNow(const char* name, const Call& call);
  // A sparse tensor's all-reduce: every rank's indices and values gathered,
  // summed by coalescing; done before it returns.
  c10::intrusive_ptr<c10d::Work> sparseAllreduce(at::Tensor& tensor, const c10d::AllreduceOptions& opts);
  // All-reduce, broadcast or reduce (`type`): one tensor, read and overwritten.
  c10::intrusive_ptr<c10d::Work> inPlace(c10d::OpType type, std::vector<at::Tensor>& tensors, trncclRedOp_t op,
                                         int root);
  // An operation from `input` into `output` (each staged contiguous if it is not).
  using PairCall = std::function<trncclResult_t(const void* in, void* out, trncclDataType_t, trncclStream_t)>;
  c10::intrusive_ptr<c10d::Work> outOfPlace(c10d::OpType type, const char* name, const at::Tensor& input,
                                            at::Tensor& output, std::vector<at::Tensor> results, const PairCall& call);
  c10::intrusive_ptr<c10d::Work> reduceScatter(c10d::OpType type, const at::Tensor& input, at::Tensor& output,
                                               std::vector<at::Tensor> results, const c10d::ReduceScatterOptions& opts);
  // Hands `works` to the completion thread, in order.
  void enqueue(const std::vector<c10::intrusive_ptr<WorkTrnccl>>& works);
  void completeInOrder();  // the completion thread
  void drain();            // waits until every queued Work completed
  void startCompletionThread();

  trncclComm_t comm_ = nullptr;
  std::chrono::milliseconds timeout_;
  size_t inlineBytes_;  // TRNCCL_TORCH_INLINE_BYTES
  StreamPool streams_;
  // While coalescing, every operation joins one trnccl group on one stream,
  // and its Work waits here until trncclGroupEnd queued the group (until then
  // the stream is empty, and synchronizing it would complete the Work early).
  bool coalescing_ = false;
  trncclStream_t coalescingStream_ = nullptr;
  std::vector<c10::intrusive_ptr<WorkTrnccl>> coalesced_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<c10::intrusive_ptr<WorkTrnccl>> pending_;
  size_t inFlight_ = 0;  // queued and not yet completed
  // Completed Works are released by the next launch() or the destructor, never
  // by the completion thread: dropping the last reference to a tensor Python
  // also sees takes the GIL, which the thread destroying the group may hold
  // while it waits for the completion thread.
  std::vector<c10::intrusive_ptr<WorkTrnccl>> finished_;
  bool stopping_ = false;
  std::thread completer_;
};

}  // namespace trnccl_torch
