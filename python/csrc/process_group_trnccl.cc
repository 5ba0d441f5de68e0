#include "process_group_trnccl.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string>

#include "call_errors.h"
#include "reduce_op.h"
#include "tensor_args.h"

namespace trnccl_torch {
namespace {

constexpr const char* kUniqueIdKey = "trnccl_unique_id";

trncclConfig_t configWithTimeout(std::chrono::milliseconds timeout) {
  trncclConfig_t config = TRNCCL_CONFIG_INITIALIZER;
  TORCH_CHECK(timeout.count() > 0, "trnccl: timeout must be positive, got ", timeout.count(), " ms");
  config.timeoutMs = static_cast<int>(std::min<int64_t>(timeout.count(), std::numeric_limits<int>::max()));
  return config;
}

// TRNCCL_TORCH_INLINE_BYTES: the largest collective run in the calling
// thread (see runsInline); 0 queues every call.
size_t inlineBytesFromEnv() {
  const char* text = std::getenv("TRNCCL_TORCH_INLINE_BYTES");
  if (text == nullptr || *text == '\0') return 64 * 1024;
  char* end = nullptr;
  errno = 0;
  const unsigned long long bytes = std::strtoull(text, &end, 10);
  TORCH_CHECK(errno == 0 && *end == '\0' && text[0] != '-', "trnccl: TRNCCL_TORCH_INLINE_BYTES is '", text,
              "', not a byte count");
  return static_cast<size_t>(bytes);
}

}  // namespace

// ---- StreamPool -----------------------------------------------------------

StreamPool::~StreamPool() {
  for (trncclStream_t s : all_) trncclStreamDestroy(s);
}

trncclStream_t StreamPool::acquire() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!idle_.empty()) {
    trncclStream_t s = idle_.back();
    idle_.pop_back();
    return s;
  }
  trncclStream_t s = nullptr;
  check("trncclStreamCreate", trncclStreamCreate(&s), nullptr);
  all_.push_back(s);
  return s;
}

void StreamPool::release(trncclStream_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(stream);
}

// ---- WorkTrnccl -------------------------------------------------------------

WorkTrnccl::WorkTrnccl(int rank, c10d::OpType type, trncclStream_t stream, std::vector<at::Tensor> outputs,
                       std::vector<at::Tensor> keepAlive, std::function<void()> copyBack)
    : c10d::Work(rank, type),
      stream_(stream),
      outputs_(std::move(outputs)),
      keepAlive_(std::move(keepAlive)),
      copyBack_(std::move(copyBack)),
      future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()))) {}

std::vector<at::Tensor> WorkTrnccl::result() { return outputs_; }

c10::intrusive_ptr<c10::ivalue::Future> WorkTrnccl::getFuture() { return future_; }

int WorkTrnccl::sourceRank() const { return sourceRank_ >= 0 ? sourceRank_ : c10d::Work::sourceRank(); }

void WorkTrnccl::complete(trncclResult_t result, const std::string& message) {
  std::exception_ptr error;
  if (result == trncclSuccess) {
    try {
      if (copyBack_) copyBack_();
    } catch (...) {
      error = std::current_exception();
    }
  } else {
    error =
        std::make_exception_ptr(std::runtime_error(failure(c10d::opTypeToString(opType_), result, message.c_str())));
  }
  finish(error);
  if (error)
    future_->setError(error);
  else
    future_->markCompleted(c10::IValue(outputs_));
}

// ---- ProcessGroupTrnccl: set-up -------------------------------------------

ProcessGroupTrnccl::ProcessGroupTrnccl(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                       std::chrono::milliseconds timeout)
    : c10d::ProcessGroup(rank, size), timeout_(timeout), inlineBytes_(inlineBytesFromEnv()) {
  TORCH_CHECK(store, "trnccl: store is None");
  trncclUniqueId id;
  if (rank == 0) {
    check("trncclGetUniqueId", trncclGetUniqueId(&id), nullptr);
    store->set(kUniqueIdKey, std::vector<uint8_t>(id.internal, id.internal + sizeof(id.internal)));
  } else {
    const std::vector<uint8_t> bytes = store->get(kUniqueIdKey);
    TORCH_CHECK(bytes.size() == sizeof(id.internal), "trnccl: the store's ", kUniqueIdKey, " holds ", bytes.size(),
                " bytes, expected ", sizeof(id.internal));
    std::copy(bytes.begin(), bytes.end(), id.internal);
  }
  trncclConfig_t config = configWithTimeout(timeout);
  check("trncclCommInitRankConfig", trncclCommInitRankConfig(&comm_, size, id, rank, &config), nullptr);
  startCompletionThread();
}

ProcessGroupTrnccl::ProcessGroupTrnccl(ProcessGroupTrnccl& parent, int rank, int size,
                                       std::chrono::milliseconds timeout)
    : c10d::ProcessGroup(rank, size), timeout_(timeout), inlineBytes_(inlineBytesFromEnv()) {
  parent.drain();  // the split is a call on the parent: after everything queued there
  trncclConfig_t config = configWithTimeout(timeout);
  check("trncclCommSplit", trncclCommSplit(parent.comm_, 0, rank, &comm_, &config), parent.comm_);
  int splitSize = 0;
  check("trncclCommCount", trncclCommCount(comm_, &splitSize), comm_);
  if (splitSize != size) {
    trncclCommDestroy(comm_);
    TORCH_CHECK(false, "trnccl: the split communicator has ", splitSize, " ranks, expected ", size);
  }
  startCompletionThread();
}

ProcessGroupTrnccl::ProcessGroupTrnccl(trncclComm_t comm, int rank, int size, std::chrono::milliseconds timeout)
    : c10d::ProcessGroup(rank, size), comm_(comm), timeout_(timeout), inlineBytes_(inlineBytesFromEnv()) {
  startCompletionThread();
}

c10::intrusive_ptr<ProcessGroupTrnccl> ProcessGroupTrnccl::shrink(ProcessGroupTrnccl& parent, std::vector<int> excluded,
                                                                  std::chrono::milliseconds timeout) {
  trncclConfig_t config = configWithTimeout(timeout);
  trncclComm_t comm = nullptr;
  // The revoke inside ends the parent's queued operations: their Works fail
  // on the completion thread, which then goes idle.
  check("trncclCommShrink",
        trncclCommShrink(parent.comm_, excluded.data(), static_cast<int>(excluded.size()), &comm, &config,
                         TRNCCL_SHRINK_ABORT),
        parent.comm_);
  int rank = 0, size = 0;
  trncclCommUserRank(comm, &rank);
  trncclCommCount(comm, &size);
  return c10::make_intrusive<ProcessGroupTrnccl>(comm, rank, size, timeout);
}

ProcessGroupTrnccl::~ProcessGroupTrnccl() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  completer_.join();  // completes what is queued first, so every stream is idle
  finished_.clear();
  trncclCommDestroy(comm_);
}

std::string ProcessGroupTrnccl::transportName() const {
  char name[TRNCCL_TRANSPORT_NAME_MAX];
  check("trncclCommGetTransport", trncclCommGetTransport(comm_, name), comm_);
  return name;
}

void ProcessGroupTrnccl::startCompletionThread() {
  completer_ = std::thread([this] { completeInOrder(); });
}

// ---- ProcessGroupTrnccl: queueing and completion --------------------------

// A small collective issued while nothing of this group is queued runs in
// the calling thread, and its Work is complete when it returns: the caller
// almost always waits for it at once, and the hand-offs to a stream thread and
// to the completion thread (four wake-ups on each rank) would cost more than
// the collective. Point-to-point calls are always queued: a receive run here
// would block the send this caller issues next.
bool ProcessGroupTrnccl::runsInline(c10d::OpType type, const std::vector<at::Tensor>& buffers) {
  if (coalescing_ || type == c10d::OpType::SEND || type == c10d::OpType::RECV) return false;
  for (const at::Tensor& t : buffers)
    if (t.nbytes() > inlineBytes_) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  return inFlight_ == 0;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::launch(c10d::OpType type, const char* name, const Call& call,
                                                          std::vector<at::Tensor> outputs,
                                                          std::vector<at::Tensor> keepAlive,
                                                          std::function<void()> copyBack) {
  if (runsInline(type, keepAlive)) {
    check(name, call(nullptr), comm_);  // a null stream: trnccl runs it in this thread
    auto work = c10::make_intrusive<WorkTrnccl>(rank_, type, nullptr, std::move(outputs), std::vector<at::Tensor>{},
                                                std::move(copyBack));
    work->complete(trncclSuccess, "");
    return work;
  }
  trncclStream_t stream = coalescing_ ? coalescingStream_ : streams_.acquire();
  const trncclResult_t result = call(stream);
  if (result != trncclSuccess) {
    if (!coalescing_) streams_.release(stream);  // nothing was queued on it
    throwTrnccl(name, result, comm_);
  }
  auto work = c10::make_intrusive<WorkTrnccl>(rank_, type, stream, std::move(outputs), std::move(keepAlive),
                                              std::move(copyBack));
  if (coalescing_)
    coalesced_.push_back(work);
  else
    enqueue({work});
  return work;
}

void ProcessGroupTrnccl::enqueue(const std::vector<c10::intrusive_ptr<WorkTrnccl>>& works) {
  std::vector<c10::intrusive_ptr<WorkTrnccl>> finished;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished.swap(finished_);
    pending_.insert(pending_.end(), works.begin(), works.end());
    inFlight_ += works.size();
  }
  changed_.notify_all();
  finished.clear();  // here, not on the completion thread (see finished_)
}

void ProcessGroupTrnccl::startCoalescing() {
  TORCH_CHECK(!coalescing_, "trnccl: startCoalescing while coalescing already");
  coalescingStream_ = streams_.acquire();
  const trncclResult_t result = trncclGroupStart();
  if (result != trncclSuccess) {
    streams_.release(coalescingStream_);
    throwTrnccl("trncclGroupStart", result, comm_);
  }
  coalescing_ = true;
}

void ProcessGroupTrnccl::endCoalescing(std::vector<c10::intrusive_ptr<c10d::Work>>&) {
  TORCH_CHECK(coalescing_, "trnccl: endCoalescing without startCoalescing");
  coalescing_ = false;
  std::vector<c10::intrusive_ptr<WorkTrnccl>> works;
  works.swap(coalesced_);
  const trncclResult_t result = trncclGroupEnd();
  if (result != trncclSuccess || works.empty()) {
    // Nothing was queued on the stream: the Works fail here, not on the completion thread.
    const std::string message = result == trncclSuccess ? "" : trncclGetLastError(comm_);
    for (const auto& work : works) work->complete(result, message);
    streams_.release(coalescingStream_);
    if (result != trncclSuccess) throwTrnccl("trncclGroupEnd", result, comm_);
    return;
  }
  for (size_t i = 0; i + 1 < works.size(); ++i) works[i]->keepStream();
  enqueue(works);
}

// trnccl runs a communicator's operations in the order they were issued, so
// synchronizing their streams in that order completes each as soon as it ends.
void ProcessGroupTrnccl::completeInOrder() {
  for (;;) {
    c10::intrusive_ptr<WorkTrnccl> work;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
      if (pending_.empty()) return;  // stopping, and nothing left
      work = pending_.front();
      pending_.pop_front();
    }
    const trncclResult_t result = trncclStreamSynchronize(work->stream());
    const std::string message = result == trncclSuccess ? "" : trncclGetLastError(nullptr);
    if (work->releasesStream()) streams_.release(work->stream());
    work->complete(result, message);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --inFlight_;
      finished_.push_back(std::move(work));
    }
    changed_.notify_all();
  }
}

void ProcessGroupTrnccl::drain() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return inFlight_ == 0; });
}

// ---- ProcessGroupTrnccl: operations ----------------------------------------

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::inPlace(c10d::OpType type, std::vector<at::Tensor>& tensors,
                                                           trncclRedOp_t op, int root) {
  Staged t(single(tensors, "tensors"));
  const trncclDataType_t dataType = dataTypeOf(t.user, "tensors");
  const char* name = type == c10d::OpType::BROADCAST ? "trncclBroadcast"
                     : type == c10d::OpType::REDUCE  ? "trncclReduce"
                                                     : "trncclAllReduce";
  return launch(
      type, name,
      [&](trncclStream_t s) {
        void* buf = t.buffer.data_ptr();
        const size_t n = count(t.buffer);
        switch (type) {
          case c10d::OpType::BROADCAST:
            return trncclBroadcast(buf, buf, n, dataType, root, comm_, s);
          case c10d::OpType::REDUCE:
            return trncclReduce(buf, buf, n, dataType, op, root, comm_, s);
          default:
            return trncclAllReduce(buf, buf, n, dataType, op, comm_, s);
        }
      },
      tensors, {t.buffer}, [t] { t.copyBack(); });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::broadcast(std::vector<at::Tensor>& tensors,
                                                             const c10d::BroadcastOptions& opts) {
  return inPlace(c10d::OpType::BROADCAST, tensors, trncclSum, static_cast<int>(opts.rootRank));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::allreduce(std::vector<at::Tensor>& tensors,
                                                             const c10d::AllreduceOptions& opts) {
  if (tensors.size() == 1 && tensors[0].defined() && tensors[0].is_sparse()) return sparseAllreduce(tensors[0], opts);
  ReduceOpFor op(opts.reduceOp, comm_);
  return inPlace(c10d::OpType::ALLREDUCE, tensors, op(single(tensors, "tensors")), 0);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::reduce(std::vector<at::Tensor>& tensors,
                                                          const c10d::ReduceOptions& opts) {
  ReduceOpFor op(opts.reduceOp, comm_);
  return inPlace(c10d::OpType::REDUCE, tensors, op(single(tensors, "tensors")), static_cast<int>(opts.rootRank));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                                             std::vector<at::Tensor>& inputs,
                                                             const c10d::AllgatherOptions&) {
  const at::Tensor input = single(inputs, "input_tensor").contiguous();
  TORCH_CHECK(outputs.size() == 1, "trnccl: output_tensor_lists holds ", outputs.size(), " lists, expected 1");
  std::vector<at::Tensor> out = outputs[0];
  TORCH_CHECK(static_cast<int>(out.size()) == size_, "trnccl: tensor_list holds ", out.size(),
              " tensors, expected one per rank (", size_, ")");
  for (const at::Tensor& o : out) {
    checkPair(o, "tensor_list", input, "tensor");
    checkNumel(o, "a tensor of tensor_list", input.numel(), "as many as the input");
  }
  at::Tensor gathered = at::empty({size_ * input.numel()}, input.options());
  const trncclDataType_t type = dataTypeOf(input, "tensor");
  return launch(
      c10d::OpType::ALLGATHER, "trncclAllGather",
      [&](trncclStream_t s) {
        return trncclAllGather(input.data_ptr(), gathered.data_ptr(), count(input), type, comm_, s);
      },
      out, {input, gathered},
      [out, gathered] {
        const int64_t n = gathered.numel() / static_cast<int64_t>(out.size());
        for (size_t i = 0; i < out.size(); ++i)
          out[i].copy_(gathered.narrow(0, static_cast<int64_t>(i) * n, n).view(out[i].sizes()));
      });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::outOfPlace(c10d::OpType type, const char* name,
                                                              const at::Tensor& input, at::Tensor& output,
                                                              std::vector<at::Tensor> results, const PairCall& call) {
  const at::Tensor in = input.contiguous();
  Staged out(output);
  const trncclDataType_t dataType = dataTypeOf(in, "input");
  return launch(
      type, name, [&](trncclStream_t s) { return call(in.data_ptr(), out.buffer.data_ptr(), dataType, s); },
      std::move(results), {in, out.buffer}, [out] { out.copyBack(); });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                                   const c10d::AllgatherOptions&) {
  checkPair(input, "input_tensor", output, "output_tensor");
  checkNumel(output, "output_tensor", size_ * input.numel(), "world size times the input's");
  const size_t n = count(input);
  return outOfPlace(c10d::OpType::_ALLGATHER_BASE, "trncclAllGather", input, output, {output},
                    [&](const void* in, void* out, trncclDataType_t type, trncclStream_t s) {
                      return trncclAllGather(in, out, n, type, comm_, s);
                    });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::reduce_scatter(std::vector<at::Tensor>& outputs,
                                                                  std::vector<std::vector<at::Tensor>>& inputs,
                                                                  const c10d::ReduceScatterOptions& opts) {
  at::Tensor& output = single(outputs, "output");
  TORCH_CHECK(inputs.size() == 1, "trnccl: input_lists holds ", inputs.size(), " lists, expected 1");
  TORCH_CHECK(static_cast<int>(inputs[0].size()) == size_, "trnccl: input_list holds ", inputs[0].size(),
              " tensors, expected one per rank (", size_, ")");
  std::vector<at::Tensor> flat;
  std::vector<size_t> counts, displs;
  for (const at::Tensor& in : inputs[0]) {
    checkPair(in, "input_list", output, "output");
    displs.push_back(counts.empty() ? 0 : displs.back() + counts.back());
    counts.push_back(count(in));
    flat.push_back(in.reshape({-1}));
  }
  checkNumel(output, "output", inputs[0][rank_].numel(), "as many as this rank's tensor of input_list");
  if (std::all_of(counts.begin(), counts.end(), [&](size_t n) { return n == counts[0]; }))
    return reduceScatter(c10d::OpType::REDUCE_SCATTER, at::cat(flat), output, outputs, opts);
  // Uneven blocks (every rank passes the same sizes): trncclReduceScatterV.
  ReduceOpFor opFor(opts.reduceOp, comm_);
  const trncclRedOp_t op = opFor(output);
  return outOfPlace(c10d::OpType::REDUCE_SCATTER, "trncclReduceScatterV", at::cat(flat), output, outputs,
                    [&](const void* in, void* out, trncclDataType_t type, trncclStream_t s) {
                      return trncclReduceScatterV(in, counts.data(), displs.data(), out, count(output), type, op, comm_,
                                                  s);
                    });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                        const c10d::ReduceScatterOptions& opts) {
  checkPair(input, "input", output, "output");
  checkNumel(input, "input", size_ * output.numel(), "world size times the output's");
  return reduceScatter(c10d::OpType::_REDUCE_SCATTER_BASE, input, output, {output}, opts);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::reduceScatter(c10d::OpType type, const at::Tensor& input,
                                                                 at::Tensor& output, std::vector<at::Tensor> results,
                                                                 const c10d::ReduceScatterOptions& opts) {
  const size_t n = count(output);
  ReduceOpFor opFor(opts.reduceOp, comm_);
  const trncclRedOp_t op = opFor(output);
  return outOfPlace(type, "trncclReduceScatter", input, output, std::move(results),
                    [&](const void* in, void* out, trncclDataType_t dataType, trncclStream_t s) {
                      return trncclReduceScatter(in, out, n, dataType, op, comm_, s);
                    });
}

namespace {

// Elements each rank's block holds: `splits` gives rows per rank (empty: equal
// blocks) of a tensor of `rows` rows of `rowElems` elements.
std::vector<size_t> blockCounts(const std::vector<int64_t>& splits, const char* what, int64_t rows, int64_t rowElems,
                                int ranks) {
  if (splits.empty()) {
    TORCH_CHECK(rows % ranks == 0, "trnccl: ", what, " is empty (equal splits) but ", rows,
                " rows do not divide among ", ranks, " ranks");
    return std::vector<size_t>(ranks, static_cast<size_t>(rows / ranks * rowElems));
  }
  TORCH_CHECK(static_cast<int>(splits.size()) == ranks, "trnccl: ", what, " holds ", splits.size(),
              " sizes, expected one per rank (", ranks, ")");
  int64_t total = 0;
  std::vector<size_t> counts;
  for (int64_t split : splits) {
    TORCH_CHECK(split >= 0, "trnccl: ", what, " holds a negative size ", split);
    total += split;
    counts.push_back(static_cast<size_t>(split * rowElems));
  }
  TORCH_CHECK(total == rows, "trnccl: ", what, " adds up to ", total, " rows, the tensor has ", rows);
  return counts;
}

int64_t rowsOf(const at::Tensor& t) { return t.dim() == 0 ? 1 : t.size(0); }

}  // namespace

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                                 std::vector<int64_t>& outputSplits,
                                                                 std::vector<int64_t>& inputSplits,
                                                                 const c10d::AllToAllOptions&) {
  checkPair(input, "input", output, "output");
  const int64_t rowElems = rowsOf(input) > 0 ? input.numel() / rowsOf(input) : 0;
  const int64_t outRowElems = rowsOf(output) > 0 ? output.numel() / rowsOf(output) : 0;
  TORCH_CHECK(rowElems == outRowElems || input.numel() == 0 || output.numel() == 0, "trnccl: input rows hold ",
              rowElems, " elements, output rows ", outRowElems);
  const std::vector<size_t> sends = blockCounts(inputSplits, "input_split_sizes", rowsOf(input), rowElems, size_);
  const std::vector<size_t> recvs = blockCounts(outputSplits, "output_split_sizes", rowsOf(output), outRowElems, size_);
  const bool equal = std::all_of(sends.begin(), sends.end(), [&](size_t n) { return n == sends[0]; }) && sends == recvs;
  if (equal)
    return outOfPlace(c10d::OpType::ALLTOALL_BASE, "trncclAlltoAll", input, output, {output},
                      [&](const void* in, void* out, trncclDataType_t type, trncclStream_t s) {
                        return trncclAlltoAll(in, out, sends[0], type, comm_, s);
                      });
  // Uneven blocks: trncclAlltoAllv, blocks packed in rank order.
  std::vector<size_t> sendDispls(size_), recvDispls(size_);
  for (int p = 1; p < size_; ++p) {
    sendDispls[p] = sendDispls[p - 1] + sends[p - 1];
    recvDispls[p] = recvDispls[p - 1] + recvs[p - 1];
  }
  return outOfPlace(c10d::OpType::ALLTOALL_BASE, "trncclAlltoAllv", input, output, {output},
                    [&](const void* in, void* out, trncclDataType_t type, trncclStream_t s) {
                      return trncclAlltoAllv(in, sends.data(), sendDispls.data(), out, recvs.data(), recvDispls.data(),
                                             type, comm_, s);
                    });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::send(std::vector<at::Tensor>& tensors, int dstRank, int) {
  const at::Tensor in = single(tensors, "tensor").contiguous();
  const trncclDataType_t type = dataTypeOf(in, "tensor");
  return launch(c10d::OpType::SEND, "trncclSend",
                [&](trncclStream_t s) { return trncclSend(in.data_ptr(), count(in), type, dstRank, comm_, s); },
                tensors, {in});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::recv(std::vector<at::Tensor>& tensors, int srcRank, int) {
  Staged out(single(tensors, "tensor"));
  const trncclDataType_t type = dataTypeOf(out.user, "tensor");
  return launch(
      c10d::OpType::RECV, "trncclRecv",
      [&](trncclStream_t s) { return trncclRecv(out.buffer.data_ptr(), count(out.buffer), type, srcRank, comm_, s); },
      tensors, {out.buffer}, [out] { out.copyBack(); });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::recvAnysource(std::vector<at::Tensor>& tensors, int tag) {
  single(tensors, "tensor");
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  int source = -1;
  // Messages take microseconds to a few milliseconds to come: poll, backing
  // off to 1 ms sleeps so that a long wait does not hold a core.
  for (auto pause = std::chrono::microseconds(1);; pause = std::min(2 * pause, std::chrono::microseconds(1000))) {
    check("trncclProbe", trncclProbe(&source, comm_), comm_);
    if (source >= 0) break;
    if (std::chrono::steady_clock::now() > deadline) throwTrnccl("recv from any source", trncclTimeout, comm_);
    std::this_thread::sleep_for(pause);
  }
  auto work = recv(tensors, source, tag);
  static_cast<WorkTrnccl&>(*work).setSourceRank(source);
  return work;
}

// A one-element all-reduce: no rank leaves before every rank entered.
c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::barrier(const c10d::BarrierOptions&) {
  const at::Tensor token = at::zeros({1}, at::kInt);
  return launch(c10d::OpType::BARRIER, "trncclAllReduce (barrier)",
                [&](trncclStream_t s) {
                  return trncclAllReduce(token.data_ptr(), token.data_ptr(), 1, trncclInt32, trncclSum, comm_, s);
                },
                {}, {token});
}

}  // namespace trnccl_torch
