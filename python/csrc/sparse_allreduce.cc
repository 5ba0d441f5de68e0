// All-reduce of a sparse COO tensor, as gloo does it: every rank's indices and
// values are gathered (padded to the largest count), then summed by
// coalescing. Concatenating in rank order makes every rank's sum the same bits.
#include "call_errors.h"
#include "process_group_trnccl.h"
#include "tensor_args.h"

namespace trnccl_torch {

void ProcessGroupTrnccl::runNow(const char* name, const Call& call) {
  trncclStream_t stream = streams_.acquire();
  trncclResult_t result = call(stream);
  if (result == trncclSuccess) result = trncclStreamSynchronize(stream);
  streams_.release(stream);
  if (result != trncclSuccess) throwTrnccl(name, result, comm_);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupTrnccl::sparseAllreduce(at::Tensor& tensor,
                                                                   const c10d::AllreduceOptions& opts) {
  TORCH_CHECK(tensor.device().is_cpu(), "trnccl: tensor is on ", tensor.device(), "; trnccl takes CPU tensors");
  TORCH_CHECK(opts.reduceOp.op_ == c10d::ReduceOp::SUM, "trnccl: a sparse tensor's all_reduce sums (ReduceOp.SUM)");
  TORCH_CHECK(!coalescing_, "trnccl: a sparse tensor's all_reduce cannot join a coalesced batch");
  const at::Tensor input = tensor.coalesce();
  const at::Tensor indices = input._indices().contiguous();  // [sparse dims, nnz], int64
  const at::Tensor values = input._values().contiguous();    // [nnz, dense sizes...]
  const trncclDataType_t valueType = dataTypeOf(values, "tensor's values");
  const int64_t nnz = input._nnz();

  const at::Tensor mine = at::full({1}, nnz, at::kLong);
  const at::Tensor counts = at::empty({size_}, at::kLong);
  runNow("trncclAllGather (sparse tensor's sizes)", [&](trncclStream_t s) {
    return trncclAllGather(mine.data_ptr(), counts.data_ptr(), 1, trncclInt64, comm_, s);
  });
  const int64_t most = counts.max().item<int64_t>();

  std::vector<int64_t> valueShape = values.sizes().vec();
  valueShape[0] = most;
  at::Tensor paddedIndices = at::zeros({indices.size(0), most}, indices.options());
  at::Tensor paddedValues = at::zeros(valueShape, values.options());
  paddedIndices.narrow(1, 0, nnz).copy_(indices);
  paddedValues.narrow(0, 0, nnz).copy_(values);
  valueShape[0] = most * size_;
  const at::Tensor allIndices = at::empty({size_, indices.size(0), most}, indices.options());
  const at::Tensor allValues = at::empty(valueShape, values.options());
  runNow("trncclAllGather (sparse tensor's indices)", [&](trncclStream_t s) {
    return trncclAllGather(paddedIndices.data_ptr(), allIndices.data_ptr(), count(paddedIndices), trncclInt64, comm_,
                           s);
  });
  runNow("trncclAllGather (sparse tensor's values)", [&](trncclStream_t s) {
    return trncclAllGather(paddedValues.data_ptr(), allValues.data_ptr(), count(paddedValues), valueType, comm_, s);
  });

  std::vector<at::Tensor> rankIndices, rankValues;
  for (int r = 0; r < size_; ++r) {
    const int64_t n = counts[r].item<int64_t>();
    rankIndices.push_back(allIndices[r].narrow(1, 0, n));
    rankValues.push_back(allValues.narrow(0, r * most, n));
  }
  const at::Tensor sum =
      at::sparse_coo_tensor(at::cat(rankIndices, 1), at::cat(rankValues, 0), tensor.sizes()).coalesce();
  tensor.copy_(sum);

  auto work = c10::make_intrusive<WorkTrnccl>(rank_, c10d::OpType::ALLREDUCE, nullptr, std::vector<at::Tensor>{tensor},
                                              std::vector<at::Tensor>{}, nullptr);
  work->complete(trncclSuccess, "");
  return work;
}

}  // namespace trnccl_torch
